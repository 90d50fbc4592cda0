import { DomainError } from '@docqa/common';

export const DOCSET_NAME_MAX = 200;
/** Printable, no control characters, no surrounding whitespace. */
// eslint-disable-next-line no-control-regex
export const DOCSET_NAME_PATTERN = /^(?!\s)[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f]$/;

/** 400 unless `name` is a valid docset name (used for path parameters; DTOs use the same rules). */
export function assertDocsetName(name: string, field = 'docSetName'): string {
  if (!name) throw DomainError.validation(field, `${field} must not be empty`);
  if (name.length > DOCSET_NAME_MAX)
    throw DomainError.validation(field, `${field} must be at most ${DOCSET_NAME_MAX} characters`);
  if (!DOCSET_NAME_PATTERN.test(name))
    throw DomainError.validation(
      field,
      `${field} must not contain control characters or surrounding whitespace`,
    );
  return name;
}
