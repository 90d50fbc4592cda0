/** Stable, machine-readable error codes. Each maps to exactly one HTTP status. */
export enum ErrorCode {
  VALIDATION_ERROR = 'VALIDATION_ERROR',
  MALFORMED_JSON = 'MALFORMED_JSON',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  HTTPS_REQUIRED = 'HTTPS_REQUIRED',
  FORBIDDEN = 'FORBIDDEN',
  PLAN_REQUIRED = 'PLAN_REQUIRED',
  ORIGIN_NOT_ALLOWED = 'ORIGIN_NOT_ALLOWED',
  NOT_FOUND = 'NOT_FOUND',
  CONFLICT = 'CONFLICT',
  INDEXING_IN_PROGRESS = 'INDEXING_IN_PROGRESS',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  UNPROCESSABLE = 'UNPROCESSABLE',
  OTP_REQUIRED = 'OTP_REQUIRED',
  SOURCE_UNREACHABLE = 'SOURCE_UNREACHABLE',
  SOURCE_EMPTY = 'SOURCE_EMPTY',
  RATE_LIMITED = 'RATE_LIMITED',
  CAPABILITY_DISABLED = 'CAPABILITY_DISABLED',
  DEPENDENCY_UNAVAILABLE = 'DEPENDENCY_UNAVAILABLE',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
}

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.VALIDATION_ERROR:
    case ErrorCode.MALFORMED_JSON:
      return 400;
    case ErrorCode.UNAUTHENTICATED:
      return 401;
    case ErrorCode.HTTPS_REQUIRED:
    case ErrorCode.FORBIDDEN:
    case ErrorCode.PLAN_REQUIRED:
    case ErrorCode.ORIGIN_NOT_ALLOWED:
      return 403;
    case ErrorCode.NOT_FOUND:
      return 404;
    case ErrorCode.CONFLICT:
    case ErrorCode.INDEXING_IN_PROGRESS:
      return 409;
    case ErrorCode.PAYLOAD_TOO_LARGE:
      return 413;
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return 415;
    case ErrorCode.UNPROCESSABLE:
    case ErrorCode.OTP_REQUIRED:
    case ErrorCode.SOURCE_UNREACHABLE:
    case ErrorCode.SOURCE_EMPTY:
      return 422;
    case ErrorCode.RATE_LIMITED:
      return 429;
    case ErrorCode.CAPABILITY_DISABLED:
    case ErrorCode.DEPENDENCY_UNAVAILABLE:
      return 503;
    case ErrorCode.INTERNAL_ERROR:
      return 500;
    default: {
      const exhaustive: never = code;
      return exhaustive;
    }
  }
}
