import { definitionFocus, questionType, scopeStems } from './question-type';

describe('questionType, definitionFocus, scopeStems', () => {
  it('classifies questions and finds their focus and scope', () => {
    expect(questionType('How many data types does MetaPost have?')).toBe('numeric');
    expect(questionType('How do I build FreeFEM with debugging enabled?')).toBe('howto');
    expect(questionType('What is a bucket in S3?')).toBe('definition');
    expect(questionType('Why would I use heightrounded?')).toBe('why');
    expect(definitionFocus('What is a bucket in S3?')).toBe('bucket');
    expect(definitionFocus('What does TLS stand for in HTTPS?')).toBe('tls');
    expect([...scopeStems('What is a bucket in Amazon S3?')]).toEqual(['amazon', 's3']);
    expect([...scopeStems('How many retries according to the client guide?')]).toEqual(['client', 'guide']);
    // Wordings seen in single dev questions are not treated specially (they were fitted to one item).
    expect(questionType('Roughly how long is a page?')).toBe('numeric'); // through "how long"
    expect(questionType('By what factor does it shrink?')).toBe('other');
    expect(scopeStems('According to the guide, how many types?').size).toBe(0);
  });
});
