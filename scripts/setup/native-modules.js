#!/usr/bin/env node
// Loads each native module DocQA runs on, on the Node running this script, and makes one real call
// into it: `node scripts/setup/native-modules.js` prints one line per module (`--json`: the report
// as JSON) and exits 1 when one fails. .ci/run runs it after `npm ci`; a unit test checks it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Protobuf wire format, enough for a tiny ONNX model: varint and length-delimited fields. */
function varint(n) {
  const out = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
const field = (no, value) =>
  typeof value === 'number'
    ? Buffer.concat([varint(no << 3), varint(value)])
    : Buffer.concat([varint((no << 3) | 2), varint(Buffer.byteLength(value)), Buffer.from(value)]);
const msg = (...fields) => Buffer.concat(fields);

/** ONNX model y = x + x over float[2] (ModelProto, opset 13). */
function addModel() {
  const valueInfo = (name) =>
    msg(
      field(1, name),
      field(2, msg(field(1, msg(field(1, 1 /* FLOAT */), field(2, msg(field(1, msg(field(1, 2))))))))),
    );
  const node = msg(field(1, 'x'), field(1, 'x'), field(2, 'y'), field(4, 'Add'));
  const graph = msg(field(1, node), field(2, 'g'), field(11, valueInfo('x')), field(12, valueInfo('y')));
  return msg(field(1, 8 /* ir_version */), field(8, msg(field(1, ''), field(2, 13))), field(7, graph));
}

const ROOT = path.resolve(__dirname, '../..');
/** The installed version (read from disk: some packages do not export their package.json). */
const versionOf = (name) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

/** name -> one real call into the module; returns what it did. */
const CHECKS = {
  argon2: async () => {
    const argon2 = require('argon2');
    const hash = await argon2.hash('docqa', { memoryCost: 4096, timeCost: 2 });
    if (!(await argon2.verify(hash, 'docqa')) || (await argon2.verify(hash, 'other')))
      throw new Error('verify gave the wrong answer');
    return 'argon2id hash and verify';
  },
  'onnxruntime-node': async () => {
    const ort = require('onnxruntime-node');
    const session = await ort.InferenceSession.create(addModel());
    const { y } = await session.run({ x: new ort.Tensor('float32', Float32Array.from([1.5, -2]), [2]) });
    await session.release();
    if (y.data[0] !== 3 || y.data[1] !== -4) throw new Error(`x + x gave ${Array.from(y.data)}`);
    return 'ran an ONNX model (x + x) on the CPU provider';
  },
  'node-llama-cpp': async () => {
    process.env.NODE_LLAMA_CPP_SKIP_DOWNLOAD ??= 'true';
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: false, build: 'never' });
    const cores = llama.cpuMathCores;
    await llama.dispose();
    if (!(cores >= 1)) throw new Error(`cpuMathCores ${cores}`);
    return `loaded the prebuilt llama.cpp binding (${cores} CPU math cores)`;
  },
  '@lancedb/lancedb': async () => {
    const lancedb = require('@lancedb/lancedb');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-native-'));
    try {
      const db = await lancedb.connect(dir);
      const table = await db.createTable('t', [
        { id: 1, vector: [0, 1] },
        { id: 2, vector: [1, 0] },
      ]);
      const [hit] = await table.vectorSearch([0.9, 0.1]).limit(1).toArray();
      table.close();
      db.close();
      if (hit?.id !== 2) throw new Error(`nearest row ${hit?.id}`);
      return 'wrote a table and ran a vector search';
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  koffi: async () => {
    const koffi = require('koffi');
    const libc = koffi.load(process.platform === 'darwin' ? 'libSystem.dylib' : 'libc.so.6');
    const strlen = libc.func('size_t strlen(const char *s)');
    const n = strlen('docqa');
    libc.unload();
    if (Number(n) !== 5) throw new Error(`strlen gave ${n}`);
    return 'called libc strlen';
  },
  '@temporalio/core-bridge': async () => {
    const { Runtime } = require('@temporalio/worker');
    const runtime = Runtime.instance();
    await runtime.shutdown();
    return 'started and shut down the Temporal Core runtime';
  },
};

async function checkNativeModules() {
  const modules = [];
  for (const [name, check] of Object.entries(CHECKS)) {
    const t0 = Date.now();
    try {
      const detail = await check();
      modules.push({ name, version: versionOf(name), ok: true, detail, ms: Date.now() - t0 });
    } catch (err) {
      modules.push({ name, version: versionOf(name), ok: false, detail: String(err?.message ?? err) });
    }
  }
  return { node: process.version, platform: `${process.platform}-${process.arch}`, modules };
}

if (require.main === module) {
  checkNativeModules().then((report) => {
    if (process.argv.includes('--json')) console.log(JSON.stringify(report));
    else {
      console.log(`native modules on Node ${report.node} (${report.platform}):`);
      for (const m of report.modules)
        console.log(`  ${m.ok ? 'ok    ' : 'FAILED'} ${m.name} ${m.version}: ${m.detail}`);
    }
    process.exit(report.modules.every((m) => m.ok) ? 0 : 1);
  });
}

module.exports = { checkNativeModules, addModel };
