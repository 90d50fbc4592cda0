import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestApp, TestApp } from '../support/app';
import { sharedDir } from '../support/infra';
import { closeCorpusExtractor, seedCorpus } from '../support/seed';
import { ASK, Caller, expectMarkersResolve, newCaller } from './support';

/**
 * Answers from the right document (issue 14) over `shared/corpus/similar`: 20 NTSB reports of one
 * template, where only the place, date, registration or aircraft a question names tells the
 * reports apart, and the page that answers rarely repeats them. Seeded through the SearchIndex
 * port with the production chunk preparation (document context, sections) and the real MiniLM.
 */
const SIMILAR = sharedDir('corpus', 'similar');

interface SimilarItem {
  id: string;
  question: string;
  fileName: string | null;
  page: number | null;
  alsoOnPages?: number[];
  alsoFiles?: Array<{ fileName: string; page: number }>;
}

const item = (id: string): SimilarItem => {
  const line = fs
    .readFileSync(path.join(SIMILAR, 'qa.jsonl'), 'utf8')
    .split('\n')
    .find((l) => l.includes(`"id": "${id}"`));
  if (!line) throw new Error(`no QA item ${id}`);
  return JSON.parse(line) as SimilarItem;
};

describe('POST /ask answers from the document a question names (near-identical reports)', () => {
  let app: TestApp;
  let caller: Caller;

  beforeAll(async () => {
    app = await startTestApp({ embeddedSearch: true });
    caller = await newCaller(app);
    const files = fs.readdirSync(SIMILAR).filter((f) => f.endsWith('.pdf'));
    // ~170 chunks through the real MiniLM embedder: under a minute idle, longer when the cores are
    // shared (the wait is bounded by CPU load, not by the product)
    await seedCorpus(app, caller.accountId, 'ntsb', files, SIMILAR);
  }, 900_000);

  afterAll(async () => {
    await closeCorpusExtractor();
    await app?.close();
  });

  const ask = async (question: string) => {
    const res = await app.client.post(ASK, { question, docSetNames: ['ntsb'] }, { token: caller.token });
    expect(res.status).toBe(200);
    expectMarkersResolve(res.body.answer, res.body.citations);
    return res.body as { answer: string; citations: Array<{ fileName: string; pageNumber: string }> };
  };

  it('answers fact questions from the report each names, never from another one', async () => {
    // Judged on every fact item of the corpus, not one: a single borderline item flips with the
    // last bits of its scores (the extractive answerer cites the named report for 0.77 of them and
    // declines the rest, docs/evaluation.md), while citing another report would be the bug.
    const facts = fs
      .readFileSync(path.join(SIMILAR, 'qa.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as SimilarItem & { kind: string })
      .filter((q) => q.kind === 'fact');
    expect(facts.length).toBeGreaterThanOrEqual(20);
    let named = 0;
    let onPage = 0;
    for (const q of facts) {
      const r = await ask(q.question);
      for (const c of r.citations) expect(`${q.id} ${c.fileName}`).toBe(`${q.id} ${q.fileName}`);
      if (r.citations.length > 0) named++;
      if (r.citations.some((c) => [q.page, ...(q.alsoOnPages ?? [])].includes(Number(c.pageNumber))))
        onPage++;
    }
    expect(named / facts.length).toBeGreaterThanOrEqual(0.6);
    expect(onPage / facts.length).toBeGreaterThanOrEqual(0.4);
  });

  it('cites the report a question names by registration and model only', async () => {
    const q = item('sim-002'); // Beech A23 N8770M
    const r = await ask(q.question);
    expect(r.citations.map((c) => c.fileName)).toContain(q.fileName);
    expect(r.citations.every((c) => c.fileName === q.fileName)).toBe(true);
  });

  it('answers a comparison from both reports it names', async () => {
    const q = item('sim-038'); // Aerostar 601 N2699G at Elyria, Ohio vs Piper PA-31T N112ED at Muscle Shoals
    const r = await ask(q.question);
    const files = new Set(r.citations.map((c) => c.fileName));
    expect(files).toEqual(new Set([q.fileName, ...(q.alsoFiles ?? []).map((f) => f.fileName)]));
  });

  it('answers a list question from every report it names', async () => {
    const q = item('sim-043'); // the four reports Todd G Gunther investigated
    const r = await ask(q.question);
    const files = new Set(r.citations.map((c) => c.fileName));
    for (const f of [q.fileName, ...(q.alsoFiles ?? []).map((x) => x.fileName)]) expect(files).toContain(f);
  });

  it('lists the reports whose form states the asked property, not those whose form denies it', async () => {
    const q = item('sim-042'); // amateur-built: three reports say `Amateur Built: Yes`, the rest `No`
    const r = await ask(q.question);
    const files = new Set(r.citations.map((c) => c.fileName));
    for (const f of [q.fileName, ...(q.alsoFiles ?? []).map((x) => x.fileName)]) expect(files).toContain(f);
  });

  it('answers a comparison whose verbs occur in no report (not taken for a foreign topic)', async () => {
    const q = item('sim-035'); // "Which happened earlier in the day": `happened`, `earlier` are in no report
    const r = await ask(q.question);
    const files = new Set(r.citations.map((c) => c.fileName));
    expect(files).toEqual(new Set([q.fileName, ...(q.alsoFiles ?? []).map((f) => f.fileName)]));
  });

  it('declines a question whose field the named report leaves blank', async () => {
    const r = await ask(item('sim-046').question); // Arteaga: `Certificate: Age:` without a value
    expect(r.citations).toEqual([]);
  });

  it('cites nothing for an accident that is not in the set', async () => {
    const r = await ask(item('sim-044').question); // Chandler, Arizona: no such report
    expect(r.citations).toEqual([]);
  });
});
