import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/**
 * `npm run eval` with its default indexing (S3 -> POST /index -> Temporal workflows), on a sample of
 * the similar corpus. Its harness starts its own engines, so nothing else covers them: the Temporal
 * server it started once lacked the namespace the app is pointed at, and every default run failed.
 */
describe('npm run eval', () => {
  it('indexes a corpus through the pipeline and scores the sampled answers', () => {
    // the same compile as package.json's "eval" script
    execFileSync(bin('tsc'), ['-p', 'bench/rag/tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
    execFileSync(bin('tsc-alias'), ['-p', 'bench/rag/tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
    const run = spawnSync(
      process.execPath,
      ['dist/rag-bench/bench/eval/run.js', '--engine', 'embedded', '--corpus', 'similar', '--sample', '4'],
      { cwd: ROOT, env: { ...process.env, EVAL_WRITE: '0' }, encoding: 'utf8', timeout: 240_000 },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, tail: run.status === 0 ? '' : output.slice(-2000) }).toEqual({
      status: 0,
      tail: '',
    });
    expect(output).toMatch(/indexed similar: 20 files in [\d.]+ s \(pipeline\)/);
    expect(output).toMatch(
      /similar\/embedded: single \d+: file@5 [\d.]+ page@5 [\d.]+ cites file [\d.]+ page [\d.]+; multi \d+: found [\d.]+; unanswerable \d+: no citation [\d.]+/,
    );
  }, 300_000);
});
