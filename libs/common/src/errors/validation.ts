import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ErrorCode } from './error-codes';

function flatten(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    if (e.constraints) out[field] = Object.values(e.constraints);
    if (e.children?.length) Object.assign(out, flatten(e.children, field));
  }
  return out;
}

/**
 * DTO validation for every surface: unknown fields rejected, the first failing field named in
 * `field` (Document API) and all of them in `errors` (Account API).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      const [field, messages] = Object.entries(fieldErrors)[0] ?? ['body', ['is invalid']];
      return new DomainError(ErrorCode.VALIDATION_ERROR, `${field}: ${messages[0]}`, { field }, fieldErrors);
    },
  });
}
