// The docker/ folder's files, and the small parsers the docker specs read them with.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = path.resolve(__dirname, '../..');
export const DOCKER = path.join(ROOT, 'docker');
export const COMPOSE_FILE = path.join(DOCKER, 'docker-compose.yml');
export const ENV_EXAMPLE = path.join(DOCKER, '.env.production.example');

// ---------------------------------------------------------------------------------------------
// Dockerfile: a small parser (instructions with continuations joined, comments dropped).

export interface Instruction {
  keyword: string;
  args: string;
  stage: string;
}

export function parseDockerfile(text: string): { instructions: Instruction[]; stages: Map<string, string> } {
  const instructions: Instruction[] = [];
  const stages = new Map<string, string>(); // stage name -> base
  let stage = '';
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (pending && line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (!full) continue;
    const [keyword, ...rest] = full.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stage = m?.[2] ?? `#${stages.size}`;
      stages.set(stage, m?.[1] ?? '');
    }
    instructions.push({ keyword: keyword.toUpperCase(), args, stage });
  }
  return { instructions, stages };
}

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

export type Service = Record<string, any>;

/** Removes draft-04 `id` keywords from a schema (not properties that happen to be named id). */
export function stripLegacyIds(node: unknown, parentKey = ''): void {
  if (Array.isArray(node)) return node.forEach((n) => stripLegacyIds(n));
  if (!node || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  const isPropertyMap = parentKey === 'properties' || parentKey === 'patternProperties';
  if (!isPropertyMap && typeof obj.id === 'string') delete obj.id;
  for (const [k, v] of Object.entries(obj)) stripLegacyIds(v, isPropertyMap ? '' : k);
}
