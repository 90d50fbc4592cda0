import * as path from 'node:path';
import { CONFIG_VARIABLES, ConfigName, ConfigVariable } from './config.schema';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Raw = Record<string, string | undefined>;

const BY_NAME = new Map<string, ConfigVariable>(
  (CONFIG_VARIABLES as readonly ConfigVariable[]).map((v) => [v.name, v]),
);

function invalid(v: ConfigVariable, raw: string, why: string): ConfigError {
  return new ConfigError(
    `Invalid configuration: ${v.name}=${v.secret ? '<redacted>' : JSON.stringify(raw)} ${why}`,
  );
}

function isOneOf<T extends string>(values: readonly T[], x: string): x is T {
  return (values as readonly string[]).includes(x);
}

/**
 * Typed reads of the declared variables: the value set (empty counts as unset), else the schema's
 * default, validated by the variable's kind. A bad value is a ConfigError naming the variable (a
 * secret's value redacted).
 */
export class EnvReader {
  constructor(private readonly env: Raw) {}

  private text(name: ConfigName, kind: ConfigVariable['kind']): { v: ConfigVariable; raw?: string } {
    const v = BY_NAME.get(name);
    if (!v || v.kind !== kind) throw new Error(`config schema: ${name} is not a ${kind} variable`);
    const set = this.env[name];
    return { v, raw: set === undefined || set === '' ? v.default : set };
  }

  optString(name: ConfigName): string | undefined {
    const { v, raw } = this.text(name, 'string');
    if (raw !== undefined && raw.trim() === '') throw invalid(v, raw, 'must not be empty');
    return raw;
  }

  string(name: ConfigName): string {
    return this.required(name, this.optString(name));
  }

  /** A path as set (resolve it with `resolved`). */
  optPath(name: ConfigName): string | undefined {
    const { v, raw } = this.text(name, 'path');
    if (raw !== undefined && raw.trim() === '') throw invalid(v, raw, 'must not be empty');
    return raw;
  }

  optUrl(name: ConfigName): string | undefined {
    const { v, raw } = this.text(name, 'url');
    if (raw === undefined) return undefined;
    try {
      new URL(raw);
    } catch {
      throw invalid(v, raw, 'must be an absolute URL');
    }
    return raw;
  }

  optInt(name: ConfigName): number | undefined {
    const { v, raw } = this.text(name, 'int');
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw invalid(v, raw, 'must be a positive integer');
    return Number(raw);
  }

  int(name: ConfigName): number {
    return this.required(name, this.optInt(name));
  }

  port(name: ConfigName): number {
    const { v, raw } = this.text(name, 'port');
    const value = this.required(name, raw);
    if (!/^\d+$/.test(value) || Number(value) > 65535)
      throw invalid(v, value, 'must be a port number 0-65535');
    return Number(value);
  }

  bool(name: ConfigName): boolean {
    const { v, raw } = this.text(name, 'bool');
    const s = this.required(name, raw).toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(s)) return true;
    if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
    throw invalid(v, s, 'must be true or false');
  }

  /** One of `values` (the schema's list, repeated in the type). */
  oneOf<T extends string>(name: ConfigName, values: readonly T[]): T {
    const { v, raw } = this.text(name, 'enum');
    const value = this.required(name, raw);
    if (!v.values?.includes(value) || !isOneOf(values, value))
      throw invalid(v, value, `must be one of ${v.values?.join(', ')}`);
    return value;
  }

  private required<T>(name: ConfigName, value: T | undefined): T {
    if (value === undefined) throw new Error(`config schema: ${name} has no default`);
    return value;
  }
}

/** `path.resolve` of a path that may be unset. */
export const resolved = (p: string | undefined): string | undefined => (p ? path.resolve(p) : undefined);
