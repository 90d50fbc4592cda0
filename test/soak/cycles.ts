// The soak's indexing operations per account, in turn: a plain index, a cancel followed by an
// immediate re-index, a forced re-index, and a delete during indexing. Each run must end, and the
// run's counts must add up to its listing.
import { S3_KEYS } from '../indexing/support';
import { Account, call, P, progressOf, sleep, Soak } from './context';

/** Longest one indexing run may stay open before the soak calls it wedged (DOCQA_SOAK_RUN_LIMIT_SECONDS). */
const RUN_LIMIT_MS = Number(process.env.DOCQA_SOAK_RUN_LIMIT_SECONDS ?? 300) * 1000;

/** The operations of each account until `until`, then a final run; counts what ran and what was checked. */
export function indexingCycles(soak: Soak, until: number) {
  const { c, log, problem } = soak;
  const operations: Record<string, number> = {};
  const count = (op: string) => (operations[op] = (operations[op] ?? 0) + 1);
  let runsChecked = 0;

  /** Waits until no run of the docset is open; a run open past RUN_LIMIT_MS is a wedge. */
  const waitRunEnd = async (a: Account, what: string): Promise<boolean> => {
    const deadline = Date.now() + RUN_LIMIT_MS;
    for (;;) {
      const p = await progressOf(soak, a).catch(() => undefined);
      if (p && !p.isIndexing) {
        if (p.indexingCount !== 0)
          problem(`${a.corpus.name} ${what}: run ended with ${p.indexingCount} document(s) still INDEXING`);
        return true;
      }
      if (Date.now() > deadline) {
        problem(`${a.corpus.name} ${what}: run still open after ${RUN_LIMIT_MS} ms (${JSON.stringify(p)})`);
        return false;
      }
      await sleep(500);
    }
  };

  /** The last run of the docset ended, and its counts add up to its listing. */
  const checkLastRun = async (a: Account, jobId: string, what: string) => {
    const s = await c.get(`${P}/documents/indexing-summary`, { token: a.token });
    const d = (s.body.docSets as Array<Record<string, any>>).find((x) => x.docSetName === a.docSet);
    const run = d?.lastRun;
    if (!run || run.jobId !== jobId)
      return problem(`${a.corpus.name} ${what}: last run is not ${jobId} (${JSON.stringify(run)})`);
    runsChecked++;
    if (!['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status))
      return problem(`${a.corpus.name} ${what}: run ended ${run.status}`);
    const k = run.counts ?? {};
    if (run.status === 'FAILED') return problem(`${a.corpus.name} ${what}: run FAILED (${run.error})`);
    const ended = (k.completed ?? 0) + (k.failed ?? 0) + (k.cancelled ?? 0) + (k.unchanged ?? 0);
    if (ended !== k.listed)
      problem(
        `${a.corpus.name} ${what}: COMPLETE/ERROR/CANCELLED/unchanged ${ended} != listed ${k.listed} (${JSON.stringify(k)})`,
      );
    if (k.listed !== a.corpus.files.length)
      problem(`${a.corpus.name} ${what}: listed ${k.listed}, the bucket has ${a.corpus.files.length}`);
  };

  const index = async (a: Account, force: boolean): Promise<string | undefined> => {
    const r = await call(
      soak,
      'POST /index',
      c.post(
        `${P}/index`,
        {
          docSetName: a.docSet,
          credentials: { ...S3_KEYS, bucket: a.bucket },
          indexOptions: { forceReindex: force },
        },
        { token: a.token },
      ),
    );
    if (r?.status !== 202) {
      problem(`${a.corpus.name}: POST /index answered ${r?.status} ${r?.text.slice(0, 200)}`);
      return undefined;
    }
    return r.body.jobId as string;
  };

  const cycles: Array<[string, (a: Account) => Promise<void>]> = [
    [
      'index',
      async (a) => {
        const job = await index(a, false);
        if (job && (await waitRunEnd(a, 'index'))) await checkLastRun(a, job, 'index');
      },
    ],
    [
      'cancel-then-reindex',
      async (a) => {
        const first = await index(a, true);
        if (!first) return;
        await sleep(1000);
        for (let i = 0; i < 2; i++) {
          const r = await call(
            soak,
            'cancel',
            c.post(`${P}/index/cancel/${a.docSet}`, undefined, { token: a.token }),
          );
          if (r && r.status !== 202 && r.status !== 409)
            problem(`${a.corpus.name}: cancel answered ${r.status} ${r.text.slice(0, 200)}`);
        }
        if (!(await waitRunEnd(a, 'cancelled run'))) return;
        const second = await index(a, false); // at once, as the first recipe
        if (second && (await waitRunEnd(a, 're-index after cancel')))
          await checkLastRun(a, second, 're-index after cancel');
      },
    ],
    [
      'force-reindex',
      async (a) => {
        const job = await index(a, true);
        if (job && (await waitRunEnd(a, 'forced re-index'))) await checkLastRun(a, job, 'forced re-index');
      },
    ],
    [
      'delete-during-indexing',
      async (a) => {
        const job = await index(a, true);
        if (!job) return;
        await sleep(1500);
        const t0 = Date.now();
        const r = await call(
          soak,
          'DELETE /index/docsets',
          c.delete(`${P}/index/docsets`, { docSetNames: [a.docSet] }, { token: a.token }),
        );
        if (r && r.status !== 200 && r.status !== 403)
          problem(
            `${a.corpus.name}: delete during indexing answered ${r.status} ${r.text.slice(0, 200)} after ${Date.now() - t0} ms`,
          );
        const p = await progressOf(soak, a);
        if (
          r?.status === 200 &&
          (p.isIndexing || p.pendingCount + p.indexingCount + p.completedCount + p.errorCount !== 0)
        )
          problem(`${a.corpus.name}: docset still there after delete (${JSON.stringify(p)})`);
        await waitRunEnd(a, 'after delete');
      },
    ],
  ];

  const accountLoop = async (a: Account, offset: number) => {
    let i = offset;
    while (Date.now() < until && !soak.stopping()) {
      const [name, fn] = cycles[i++ % cycles.length];
      count(name);
      log(`${a.corpus.name}: ${name}`);
      await fn(a).catch((err: Error) => problem(`${a.corpus.name} ${name}: ${err.message}`));
    }
    // The last word: a plain run (it picks up whatever a cancel or delete left) that must leave
    // every file in its expected state.
    const job = await index(a, false);
    if (job && (await waitRunEnd(a, 'final run'))) await checkLastRun(a, job, 'final run');
  };

  return { accountLoop, operations, runsChecked: () => runsChecked };
}
