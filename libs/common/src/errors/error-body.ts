import { DomainError } from './domain-error';
import { Surface } from './surface';

export interface DocumentErrorBody {
  message: string;
  errorCode: string;
  [context: string]: unknown;
}

export interface AccountErrorBody {
  error: string;
  errors?: Record<string, string[]>;
  limit?: number;
  reset_at?: string;
}

/** Renders a DomainError in the error body of the given surface. */
export function renderError(err: DomainError, surface: Surface): DocumentErrorBody | AccountErrorBody {
  if (surface === 'document') {
    return { message: err.message, errorCode: err.code, ...err.context };
  }
  const body: AccountErrorBody = { error: err.message };
  if (err.fieldErrors) body.errors = err.fieldErrors;
  if (typeof err.context.limit === 'number') body.limit = err.context.limit;
  if (typeof err.context.reset_at === 'string') body.reset_at = err.context.reset_at;
  return body;
}
