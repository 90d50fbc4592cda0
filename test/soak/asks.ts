// The soak's question load: an ask every second for each account, timed.
import { percentile } from '../support/stats';
import { Account, call, P, sleep, Soak } from './context';
import type { SoakReport } from './report';

/** Longest an ask may take (issue #13). */
export const ASK_LIMIT_MS = 5000;

/** Asks each account's questions in turn, once a second, until the soak stops. */
export function askLoad(soak: Soak, accounts: Account[]) {
  const { c, problem } = soak;
  const askMs: number[] = [];
  const askStatus: Record<string, number> = {};

  const run = async () => {
    let n = 0;
    while (!soak.stopping()) {
      const tick = Date.now();
      await Promise.all(
        accounts.map(async (a) => {
          const question = a.corpus.questions[n % a.corpus.questions.length];
          const t0 = Date.now();
          const r = await call(
            soak,
            'ask',
            c.post(`${P}/ask`, { question, docSetNames: [a.docSet] }, { token: a.token }),
          );
          const ms = Date.now() - t0;
          askMs.push(ms);
          const key = String(r?.status ?? 'error');
          askStatus[key] = (askStatus[key] ?? 0) + 1;
          if (ms > ASK_LIMIT_MS) problem(`${a.corpus.name}: ask took ${ms} ms`);
          // 403: the docset has no COMPLETE document at that moment (deleted, or being re-indexed).
          if (r && r.status !== 200 && r.status !== 403)
            problem(`${a.corpus.name}: ask answered ${r.status} ${r.text.slice(0, 200)}`);
        }),
      );
      n++;
      await sleep(Math.max(0, 1000 - (Date.now() - tick)));
    }
  };

  const summary = (): SoakReport['asks'] => {
    const sorted = [...askMs].sort((x, y) => x - y);
    return {
      count: askMs.length,
      byStatus: askStatus,
      p50Ms: sorted.length ? percentile(sorted, 50) : 0,
      p95Ms: sorted.length ? percentile(sorted, 95) : 0,
      maxMs: sorted[sorted.length - 1] ?? 0,
    };
  };

  return { run, summary };
}
