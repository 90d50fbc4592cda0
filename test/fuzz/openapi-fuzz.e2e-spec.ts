import { register } from '../accounts/support';
import { setPlan } from '../chatbot/support';
import { accountIdOfToken, seedDocuments } from '../support/seed';
import { startIndexingApp } from '../indexing/support';
import type { TestApp } from '../support/app';
import { runSchemathesis } from './schemathesis';

/**
 * Property-based fuzzing of every operation in the OpenAPI document with Schemathesis, as a
 * registered user: zero 5xx responses and zero responses that break their documented schema.
 * `npm test` runs a bounded pass (DOCQA_FUZZ_EXAMPLES / DOCQA_FUZZ_SECONDS, default 6 examples per
 * operation within 80 s); `npm run test:fuzz` runs a long one.
 *
 * Left out: operations that destroy the fuzzing caller's own credential (DELETE /me, revoking API
 * tokens, two-factor enrolment, password change) - they are covered by test/accounts - because
 * after them every later request is a 401 and the run tests nothing.
 */
/** Examples per operation and the run's bound; the test's own deadline follows the bound. */
const EXAMPLES = Number(process.env.DOCQA_FUZZ_EXAMPLES ?? 6);
const SECONDS = Number(process.env.DOCQA_FUZZ_SECONDS ?? 80);

const EXCLUDE =
  '^(DELETE /api/v1/me|DELETE /api/v1/api_tokens/\\{id\\}|POST /api/v1/two_factor.*|PATCH /api/v1/password)$';

describe('OpenAPI fuzzing (Schemathesis)', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startIndexingApp();
    const u = await register(app);
    token = u.token;
    const accountId = await accountIdOfToken(app, u.tokenId);
    await setPlan(app, accountId, 'pro');
    await seedDocuments(app, accountId, [
      { docSetName: 'string', fileName: 'a.txt', pages: ['Fuzzing target text about lighthouses.'] },
      { docSetName: 'docs', fileName: 'b.txt', pages: ['Another page, about tides.'] },
    ]);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  it(
    'finds no 5xx and no response outside its documented schema',
    async () => {
      const res = await runSchemathesis(app, {
        token,
        maxExamples: EXAMPLES,
        maxTimeSeconds: SECONDS,
        excludeOperation: EXCLUDE,
      });
      if (res.code !== 0) throw new Error(`schemathesis exited ${res.code}:\n${res.output.slice(-12000)}`);
      expect(res.output).toMatch(/passed|No issues found/i);
      expect(app.logs()).not.toContain(token);
      // Schemathesis stops at --max-time and then reports: start-up and the report get five minutes more.
    },
    Math.max(420, SECONDS + 300) * 1000,
  );
});
