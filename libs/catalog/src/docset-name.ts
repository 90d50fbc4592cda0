import { registerDecorator, ValidationOptions } from 'class-validator';
import { DomainError } from '@docqa/common';
import { codePointLength, hasLoneSurrogate } from '@docqa/text';

/**
 * The one definition of a valid docset name, used by every surface that takes one (request
 * bodies, path and query parameters, /ask, chatbot settings, API token scopes):
 *
 * - a string of 1 to DOCSET_NAME_MAX Unicode code points (not UTF-16 code units: an emoji counts
 *   once, as Postgres `char_length` counts it);
 * - well-formed Unicode: no unpaired UTF-16 surrogate (it cannot be stored or sent on as UTF-8);
 * - no control characters (U+0000-U+001F, U+007F);
 * - no leading or trailing whitespace.
 */
export const DOCSET_NAME_MAX = 200;

/** The rules in one sentence (OpenAPI descriptions, docs). */
export const DOCSET_NAME_RULE =
  `A docset name: 1 to ${DOCSET_NAME_MAX} Unicode code points (an emoji counts as one), ` +
  'no control characters, no leading or trailing whitespace.';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why `value` is not a valid docset name (a phrase to follow the field name, e.g. "must be a
 * string"), or undefined when it is one.
 */
export function docsetNameProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return 'is required';
  if (typeof value !== 'string') return 'must be a string';
  if (value === '') return 'must not be empty';
  if (hasLoneSurrogate(value)) return 'must be valid Unicode (it contains an unpaired surrogate)';
  if (codePointLength(value) > DOCSET_NAME_MAX) return `must be at most ${DOCSET_NAME_MAX} characters`;
  if (CONTROL.test(value)) return 'must not contain control characters';
  if (value.trim() !== value) return 'must not start or end with whitespace';
  return undefined;
}

export function isDocsetName(value: unknown): value is string {
  return docsetNameProblem(value) === undefined;
}

/** 400 VALIDATION_ERROR naming the rule unless `name` is a valid docset name (path and query parameters). */
export function assertDocsetName(name: unknown, field = 'docSetName'): string {
  const problem = docsetNameProblem(name);
  if (problem) throw DomainError.validation(field, `${field} ${problem}`);
  return name as string;
}

/** class-validator decorator for DTO fields: the same rules and messages as `assertDocsetName`. */
export function IsDocsetName(options: Pick<ValidationOptions, 'each'> = {}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isDocsetName',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => isDocsetName(value),
        defaultMessage: (args) => {
          const values = options.each && Array.isArray(args?.value) ? args.value : [args?.value];
          const problem = values.map(docsetNameProblem).find((p) => p !== undefined) ?? 'is invalid';
          return options.each
            ? `${args?.property} must hold valid docset names: each ${problem}`
            : `${args?.property} ${problem}`;
        },
      },
    });
}
