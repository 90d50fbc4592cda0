import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const runtime = require('./node-runtime');
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('Node 24 (docs/adr/0103-node-24.md)', () => {
  it('runs these tests on Node 24 or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(runtime.supported()).toBe(true);
  });

  it('names one Node release in .nvmrc, the Dockerfile, engines, @types/node and the provisioning', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(runtime.NODE_VERSION).toMatch(/^24\.\d+\.\d+$/);
    expect(read('.nvmrc').trim()).toBe(runtime.NODE_VERSION);
    expect(/^ARG NODE_VERSION=(\S+)$/m.exec(read('docker/Dockerfile'))?.[1]).toBe(runtime.NODE_VERSION);
    expect(pkg.engines.node).toBe(`>=${runtime.MIN_MAJOR}`);
    expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^${runtime.MIN_MAJOR}\\.`));
    expect(pkg.scripts.postinstall).toBe('node scripts/setup/node-runtime.js link');
    expect(Object.keys(runtime.INTEGRITY)).toContain('linux-x64');
    for (const sri of Object.values(runtime.INTEGRITY)) expect(sri).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it('tells the Nodes that run DocQA from older ones', () => {
    expect(runtime.supported('20.20.2')).toBe(false);
    expect(runtime.supported('v22.12.0')).toBe(false);
    expect(runtime.supported('24.0.0')).toBe(true);
    expect(runtime.supported('v26.1.0')).toBe(true);
  });

  it('computes the npm registry integrity string of a file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-node-'));
    const file = path.join(dir, 'a.tgz');
    fs.writeFileSync(file, 'abc');
    // sha512("abc"), base64 (FIPS 180-2 test vector)
    expect(runtime.integrityOf(file)).toBe(
      'sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==',
    );
    fs.writeFileSync(file, 'abd');
    expect(runtime.integrityOf(file)).not.toMatch(/^sha512-3a81oZ/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('links node_modules/.bin/node to the given Node, replacing what was there', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-node-'));
    fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', '.bin', 'node'), '#!/bin/sh\necho old\n');
    const link = runtime.linkInto(root, process.execPath);
    expect(link).toBe(path.join(root, 'node_modules', '.bin', 'node'));
    expect(fs.readlinkSync(link)).toBe(process.execPath);
    expect(execFileSync(link, ['-p', 'process.version'], { encoding: 'utf8' }).trim()).toBe(process.version);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('bin-dir names the running Node when it is new enough (what .ci/run puts on PATH)', () => {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'node-runtime.js'), 'bin-dir'], {
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(path.dirname(process.execPath));
  });

  it('loads every native module on this Node and makes a real call into each', () => {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'native-modules.js'), '--json'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
    });
    const report = JSON.parse(out) as {
      node: string;
      modules: { name: string; ok: boolean; detail: string }[];
    };
    expect(report.node).toBe(process.version);
    expect(report.modules.map((m) => m.name).sort()).toEqual(
      [
        '@lancedb/lancedb',
        '@temporalio/core-bridge',
        'argon2',
        'koffi',
        'node-llama-cpp',
        'onnxruntime-node',
      ].sort(),
    );
    for (const m of report.modules)
      expect({ name: m.name, ok: m.ok, detail: m.detail }).toMatchObject({ ok: true });
  });
});
