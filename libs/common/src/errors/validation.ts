import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-codes';

/**
 * Constraints that say what kind of value a field takes, in the order their message is preferred:
 * when a value has the wrong type, bounds and patterns fail too, but only the type is the news.
 */
const TYPE_CONSTRAINTS = [
  'whitelistValidation',
  'isDefined',
  'isString',
  'isArray',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isEnum',
  'isIn',
  'nestedValidation',
];

/**
 * The one message reported for a field: a missing (or null) required value is "is required";
 * otherwise the type rule if it failed; otherwise the first rule that failed (emptiness, bounds,
 * patterns).
 */
function messageOf(e: ValidationError): string {
  const c = e.constraints ?? {};
  if (c.whitelistValidation) return c.whitelistValidation;
  if (e.value === undefined || e.value === null) return `${e.property} is required`;
  for (const k of TYPE_CONSTRAINTS) if (c[k]) return c[k];
  return Object.values(c)[0] ?? `${e.property} is invalid`;
}

function flatten(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length) out[field] = [messageOf(e)];
    // A field whose own value is wrong is reported once; its children only when it is itself fine.
    else if (e.children?.length) Object.assign(out, flatten(e.children, field));
  }
  return out;
}

/**
 * DTO validation (the Document API's approach; the Account and chatbot surfaces parse raw bodies
 * in their libs instead, docs/conventions.md): unknown fields rejected, the first failing field
 * named in `field` and all of them in `errors` (rendered per surface by the exception filter),
 * each with the message of the rule that failed (every rule is evaluated, then `messageOf` picks
 * the one to report).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      const [field, messages] = Object.entries(fieldErrors)[0] ?? ['body', ['is invalid']];
      return new DomainError(ErrorCode.VALIDATION_ERROR, `${field}: ${messages[0]}`, { field }, fieldErrors);
    },
  });
}
