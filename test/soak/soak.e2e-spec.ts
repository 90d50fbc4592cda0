// Issue #13's soak, bounded for `npm test` (DOCQA_SOAK_SECONDS, default 60, of operations per
// engine); `npm run test:soak` runs it longer. See soak.ts for what it does and checks.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client as EsClient } from '@elastic/elasticsearch';
import { deleteEsPrefix } from '../search/es-cleanup';
import { infra } from '../support/infra';
import { Engine, runSoak, soakCorpora } from './soak';

const SECONDS = Number(process.env.DOCQA_SOAK_SECONDS ?? 60);

describe.each<Engine>(['embedded', 'elasticsearch'])('soak on the %s engine (issue #13)', (engine) => {
  it(
    `three accounts index, cancel and re-index, force, delete and ask for ${SECONDS} s: every run ends, no ask waits over 5 s, health never ok while a step is stuck, Ctrl-C exits`,
    async () => {
      const logFile = path.join(os.tmpdir(), `docqa-soak-${engine}-${Date.now()}.log`);
      const log = (line: string) => fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
      const report = await runSoak({ engine, seconds: SECONDS, corpora: soakCorpora(), log });
      console.log(`soak ${engine}: ${JSON.stringify(report)} (log: ${logFile})`);
      if (engine === 'elasticsearch') {
        const es = new EsClient({ node: infra().elasticsearchUrl });
        await deleteEsPrefix(es, 'soak-').finally(() => es.close());
      }
      expect(report.problems).toEqual([]);
      for (const op of ['index', 'cancel-then-reindex', 'force-reindex', 'delete-during-indexing'])
        expect(report.operations[op] ?? 0).toBeGreaterThan(0);
      expect(report.runsChecked).toBeGreaterThanOrEqual(3);
      expect(report.asks.count).toBeGreaterThanOrEqual(SECONDS);
      expect(report.asks.maxMs).toBeLessThanOrEqual(5000);
      expect(report.shutdown.code).toBe(0);
    },
    (SECONDS + 900) * 1000,
  );
});
