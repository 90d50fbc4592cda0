import { analyseQuery, withSearchQuery } from './query-analysis';
import { queryStems } from './query-terms';

describe('analyseQuery', () => {
  it('reads the question once: what is asked, its scope, type, focus and terms', () => {
    const a = analyseQuery('What is a bucket in Amazon S3? Answer in one sentence.');
    expect(a.question).toBe('What is a bucket in Amazon S3? Answer in one sentence.');
    expect(a.query).toBe(a.question); // no rewritten query: the question is searched
    expect(a.asked).toBe('What is a bucket in Amazon S3?');
    expect(a.askedQuery).toBe(a.asked);
    expect(a.scope).toBe('single');
    expect(a.type).toBe('definition');
    expect(a.queryType).toBe('definition');
    expect(a.definitionFocus).toBe('bucket');
    expect(a.scopeStems).toEqual(['amazon', 's3']);
    expect(a.askedTerms).toEqual(queryStems('What is a bucket in Amazon S3?'));
    expect(a.askedTerms).toContain('bucket');
    expect(a.askedTerms).not.toContain('sentenc'); // the instruction is no term of the question
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('reads the statements and line items a financial question asks for', () => {
    const a = analyseQuery(
      'Using only the information within the cash flow statement, what is the FY2018 capex for 3M?',
    );
    expect(a.asked).toBe('what is the FY2018 capex for 3M?');
    expect(a.statements).toEqual(['cash-flow']);
    expect(a.lineItems).toEqual([{ item: 'capex', stems: ['capex'] }]);
    expect(a.fiscalYears).toEqual(['fy2018']);
    expect(analyseQuery("As of Q2'2023, is Pfizer spinning off a segment?").fiscalYears).toEqual(['fy2023']);
  });

  it('tells list and compare questions, and keeps the identifiers a question names', () => {
    expect(analyseQuery('Which of the accidents were fatal? Name the locations.').scope).toBe('list');
    expect(analyseQuery('Compare the net sales of Apple and Microsoft.').scope).toBe('compare');
    const a = analyseQuery('How do I set page.margin.top in the stylesheet?');
    expect(a.identifiers).toEqual(['=page.margin.top']);
    expect(a.askedTerms).toContain('=page.margin.top');
    expect(a.terms).toContain('=page.margin.top');
    expect(a.type).toBe('howto');
    expect(a.definitionFocus).toBeUndefined();
  });

  it("adds the search query's terms after the question's, without its instructions", () => {
    const a = analyseQuery(
      'How long is it kept?',
      'retention policy: how long is it kept? Round to whole days.',
    );
    expect(a.askedQuery).toBe('retention policy: how long is it kept?');
    expect(a.type).toBe('numeric');
    expect(a.terms.slice(0, a.askedTerms.length)).toEqual(a.askedTerms);
    expect(a.terms).toEqual(expect.arrayContaining(['retention', 'policy']));
    expect(a.askedTerms).not.toContain('retention'); // brought in by the rewriter: not the question's own
    expect(a.terms).not.toContain('round');
  });

  it('types the question and the search query apart (the reranker reads the query)', () => {
    const a = analyseQuery('tls meaning', 'What does TLS stand for?');
    expect(a.type).toBe('other');
    expect(a.queryType).toBe('definition');
  });

  it('completes a question analysis with the rewritten query as analysing both at once would', () => {
    const question = 'Why did it fail? Please answer briefly.';
    const first = analyseQuery(question);
    const query = 'Why did the nightly backup job fail?';
    expect(withSearchQuery(first, query)).toEqual(analyseQuery(question, query));
    expect(withSearchQuery(first, question)).toBe(first); // unchanged query: the same analysis
    expect(first.query).toBe(question); // the first analysis is left as it was
  });

  it('survives JSON (the eval dumps and replays generator inputs)', () => {
    const a = analyseQuery('How many retries according to the client guide?');
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});
