import { EMBEDDER, Embedder } from '@docqa/embeddings';
import { startTestApp, TestApp } from '../support/app';
import type { HttpResponse } from '../support/http';
import { closeCorpusExtractor, seedCorpus, seedDocuments } from '../support/seed';
import { ASK, Caller, newCaller } from './support';

/** The app, accounts and docsets the POST /ask suites (ask-*.e2e-spec.ts) ask against. */
export interface AskFixture {
  app: TestApp;
  /** Owns 'manuals' (dev-corpus PDFs), 'notes' and 'queued' (no COMPLETE document). */
  alice: Caller;
  /** Owns 'bobs', whose words overlap alice's manuals. */
  bob: Caller;
  /** POST /ask, as alice unless another token is given. */
  ask(body: unknown, token?: string, headers?: Record<string, string>): Promise<HttpResponse>;
  /** The configured embedder's model (all-MiniLM-L6-v2, or its int8 space on CPUs with VNNI). */
  embedderModel(): string;
}

/** The dev-corpus PDFs the answers are asked of. */
const MANUALS = ['geometry.pdf', 'mpman.pdf', 'booktabs.pdf', 'screenplay.pdf'];

/**
 * Starts the app and seeds the fixture (`manuals`: the PDFs of alice's 'manuals' docset) before the enclosing describe's tests, closes it after. The
 * returned object is filled in by the beforeAll hook: read its fields inside tests and hooks.
 */
export function useAskFixture(manuals: readonly string[] = MANUALS): AskFixture {
  const fixture = {
    ask: (body, token = fixture.alice.token, headers) =>
      fixture.app.client.post(ASK, body, { token, headers }),
    embedderModel: () => fixture.app.api.app.get<Embedder>(EMBEDDER).modelName,
  } as AskFixture;

  beforeAll(async () => {
    const app = await startTestApp();
    fixture.app = app;
    const alice = (fixture.alice = await newCaller(app));
    const bob = (fixture.bob = await newCaller(app));
    await seedCorpus(app, alice.accountId, 'manuals', [...manuals]);
    await seedDocuments(app, alice.accountId, [
      { docSetName: 'queued', fileName: 'later.pdf', pages: ['not indexed yet'], status: 'PENDING' },
      { docSetName: 'notes', fileName: 'notes.txt', pages: ['Quarterly notes about the travel policy.'] },
    ]);
    await seedDocuments(app, bob.accountId, [
      { docSetName: 'bobs', fileName: 'bob.pdf', pages: ['Bob keeps the geometry margins secret: 7cm.'] },
    ]);
    // the four manuals: ~510 chunks through the real embedder: ~20 s on an idle 2-core machine, minutes
    // when the cores are shared (the wait is bounded by CPU load, not by the product)
  }, 900_000);

  afterAll(async () => {
    await closeCorpusExtractor();
    await fixture.app?.close();
  });

  return fixture;
}
