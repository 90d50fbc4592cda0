import { DomainError } from '@docqa/common';

/**
 * Checks of the `credentials` fields of an index request, shared by the source connectors: each
 * failure is a 400 naming the field (`credentials.<name>`).
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The request path of a credentials field, as error bodies name it. */
export function field(name: string): string {
  return `credentials.${name}`;
}

export function requiredString(
  obj: Record<string, unknown>,
  key: string,
  max: number,
  path = field(key),
): string {
  const v = optionalString(obj, key, max, path);
  if (v === undefined || v.length === 0) throw DomainError.validation(path, `${path} is required`);
  return v;
}

export function optionalString(
  obj: Record<string, unknown>,
  key: string,
  max: number,
  path = field(key),
): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw DomainError.validation(path, `${path} must be a string`);
  if (v.length > max) throw DomainError.validation(path, `${path} must be at most ${max} characters`);
  return v;
}

/** optionalString that also refuses control characters (secrets, ids, names sent to a provider). */
export function optionalPlainString(
  obj: Record<string, unknown>,
  key: string,
  max: number,
  path = field(key),
): string | undefined {
  const v = optionalString(obj, key, max, path);
  if (v !== undefined) noControl(path, v);
  return v;
}

export function noControl(path: string, v: string): void {
  if (CONTROL.test(v)) throw DomainError.validation(path, `${path} must not contain control characters`);
}

export function credentialsObject(
  raw: unknown,
  source: string,
  allowed: readonly string[],
  serverFields: Set<string>,
): Record<string, unknown> {
  if (raw === undefined || raw === null)
    throw DomainError.validation('credentials', `credentials are required for a ${source} source`);
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw DomainError.validation('credentials', 'credentials must be an object');
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (serverFields.has(key))
      throw DomainError.validation(
        field(key),
        `${field(key)} is not accepted: ${source} endpoints are server configuration`,
      );
    if (!allowed.includes(key))
      throw DomainError.validation(field(key), `${field(key)} is not a known ${source} credentials field`);
  }
  return obj;
}
