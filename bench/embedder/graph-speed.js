#!/usr/bin/env node
/* Speed of embedder graphs with onnxruntime alone (no tokenizer, no batch queue), graphs taking
 * turns so that each round sees the same machine state; optionally where the time goes by operator.
 *
 *   node bench/embedder/graph-speed.js OLD.onnx NEW.onnx [--rounds 5] [--runs 30] [--batch 8] [--tokens 256]
 *   node bench/embedder/graph-speed.js model.int8.onnx --profile      (share of kernel time per operator)
 *
 * Input: full-length rows of synthetic token ids (every row `tokens` long, no padding; --padded
 * masks a growing tail of each row instead). Prints chunks/s per graph and round, and the first
 * output values so that graphs meant to be equivalent can be compared at a glance. */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ort = require('onnxruntime-node');

function args(argv) {
  const o = { graphs: [], rounds: 5, runs: 30, batch: 8, tokens: 256, threads: 2, profile: false, padded: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--profile') o.profile = true;
    else if (a === '--padded') o.padded = true;
    else if (a.startsWith('--')) o[a.slice(2)] = Number(argv[++i]);
    else o.graphs.push(path.resolve(a));
  }
  if (!o.graphs.length) throw new Error('usage: graph-speed.js GRAPH.onnx [GRAPH2.onnx ...] [--rounds N] [--runs N] [--profile]');
  return o;
}

function feeds(batch, tokens, padded) {
  const n = batch * tokens;
  const ids = new BigInt64Array(n);
  const mask = new BigInt64Array(n).fill(1n);
  for (let i = 0; i < n; i++) ids[i] = BigInt(1000 + ((i * 7919) % 20000));
  for (let b = 0; b < batch; b++) {
    ids[b * tokens] = 101n; // [CLS]
    const end = padded ? Math.floor((tokens * (b + 1)) / (batch + 1)) : tokens;
    ids[b * tokens + end - 1] = 102n; // [SEP]
    for (let t = end; t < tokens; t++) {
      ids[b * tokens + t] = 0n;
      mask[b * tokens + t] = 0n;
    }
  }
  const shape = [batch, tokens];
  return {
    input_ids: new ort.Tensor('int64', ids, shape),
    attention_mask: new ort.Tensor('int64', mask, shape),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), shape),
  };
}

async function session(graph, o, profileDir) {
  return ort.InferenceSession.create(graph, {
    intraOpNumThreads: o.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    ...(profileDir ? { enableProfiling: true, profileFilePrefix: path.join(profileDir, 'profile') } : {}),
  });
}

async function profile(graph, o) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graph-profile-'));
  const s = await session(graph, o, dir);
  const f = feeds(o.batch, o.tokens, o.padded);
  for (let i = 0; i < 4; i++) await s.run(f);
  s.endProfiling();
  const file = fs.readdirSync(dir).find((x) => x.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const perOp = new Map();
  let total = 0;
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    perOp.set(e.args.op_name, (perOp.get(e.args.op_name) ?? 0) + e.dur);
    total += e.dur;
  }
  console.log(`${path.basename(graph)}: kernel time by operator (4 runs of ${o.batch} x ${o.tokens} tokens)`);
  for (const [op, us] of [...perOp].sort((a, b) => b[1] - a[1]))
    console.log(`  ${op.padEnd(28)} ${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %`);
}

async function main() {
  const o = args(process.argv.slice(2));
  if (o.profile) {
    for (const g of o.graphs) await profile(g, o);
    return;
  }
  const f = feeds(o.batch, o.tokens, o.padded);
  const rates = new Map(o.graphs.map((g) => [g, []]));
  for (let r = 1; r <= o.rounds; r++) {
    for (const g of o.graphs) {
      const s = await session(g, o);
      await s.run(f); // warm-up
      const t0 = process.hrtime.bigint();
      let out;
      for (let i = 0; i < o.runs; i++) out = await s.run(f);
      const sec = Number(process.hrtime.bigint() - t0) / 1e9;
      await s.release();
      const rate = (o.batch * o.runs) / sec;
      rates.get(g).push(rate);
      const first = Array.from(out.sentence_embedding.data.slice(0, 3), (x) => x.toFixed(6)).join(' ');
      console.log(`round ${r} ${path.basename(path.dirname(g))}/${path.basename(g)}: ${rate.toFixed(1)} chunks/s (load ${os.loadavg()[0].toFixed(2)}; first values ${first})`);
    }
  }
  for (const [g, rs] of rates)
    console.log(`${g}: mean ${(rs.reduce((a, b) => a + b, 0) / rs.length).toFixed(1)} chunks/s over ${rs.length} rounds`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
