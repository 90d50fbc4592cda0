import { docsetNameProblem } from '@docqa/catalog';
import { DomainError, ErrorCode } from '@docqa/common';
import { passwordPolicyProblem } from './users/password-policy';

/**
 * Account API request parsing. Input is validated once, here, where each command is built:
 * a missing wrapper object is 400; field problems are 422 with `errors: { field: [messages] }`
 * (Rails-style messages, every failing field reported at once).
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;
export const NAME_MAX = 100;
export const TOKEN_NAME_MAX = 100;
export const TOKEN_DOCSETS_MAX = 100;
const EMAIL_SHAPE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/;

/** An e-mail address the product accepts (users, chatbot support address): at most EMAIL_MAX characters, `local@domain.tld`. */
export function isEmail(v: string): boolean {
  return v.length <= EMAIL_MAX && EMAIL_SHAPE.test(v);
}

export interface RegisterCommand {
  email: string;
  password: string;
  name: string;
  termsAccepted: boolean;
}

export interface LoginCommand {
  email: string;
  password: string;
  otpAttempt?: string;
}

export interface ChangePasswordCommand {
  currentPassword: string;
  password: string;
}

export interface CreateTokenCommand {
  name: string;
  readOnly: boolean;
  docSetNames: string[] | null;
}

export interface CreateAccountCommand {
  name: string;
}

export interface DisableTwoFactorCommand {
  otpAttempt?: string;
  password?: string;
}

type Obj = Record<string, unknown>;

/** A JSON object (not null, not an array): what a request body or a nested field must be. */
export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects field errors; `throwIfAny` raises one 422 naming all of them. */
export class FieldErrors {
  readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw unprocessable(this.errors);
  }
}

const humanize = (field: string) => {
  const s = field.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** 422 `{ error: "Validation failed: ...", errors }`. */
export function unprocessable(errors: Record<string, string[]>): DomainError {
  const parts = Object.entries(errors).flatMap(([f, ms]) => ms.map((m) => `${humanize(f)} ${m}`));
  return new DomainError(ErrorCode.UNPROCESSABLE, `Validation failed: ${parts.join(', ')}`, {}, errors);
}

/** 400 for a missing wrapper object or required parameter. */
export function missingParam(name: string): DomainError {
  return new DomainError(
    ErrorCode.VALIDATION_ERROR,
    `param is missing or the value is empty: ${name}`,
    { field: name },
    { [name]: ["can't be blank"] },
  );
}

function wrapper(body: unknown, key: string): Obj {
  if (!isObject(body) || !isObject(body[key])) throw missingParam(key);
  return body[key];
}

function optionalString(v: unknown, field: string, errs: FieldErrors, max: number): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    errs.add(field, 'must be a string');
    return undefined;
  }
  if (v.length > max) errs.add(field, `is too long (maximum is ${max} characters)`);
  return v;
}

function requiredString(v: unknown, field: string, errs: FieldErrors): string | undefined {
  if (v === undefined || v === null || v === '') {
    errs.add(field, "can't be blank");
    return undefined;
  }
  if (typeof v !== 'string') {
    errs.add(field, 'must be a string');
    return undefined;
  }
  return v;
}

/** `email`: the account's e-mail address when known here (registration); the service checks it otherwise. */
function checkNewPassword(obj: Obj, errs: FieldErrors, email?: string): string | undefined {
  const password = requiredString(obj.password, 'password', errs);
  if (password !== undefined) {
    if (password.length < PASSWORD_MIN)
      errs.add('password', `is too short (minimum is ${PASSWORD_MIN} characters)`);
    else if (password.length > PASSWORD_MAX)
      errs.add('password', `is too long (maximum is ${PASSWORD_MAX} characters)`);
    else {
      const problem = passwordPolicyProblem(password, email);
      if (problem) errs.add('password', problem);
    }
  }
  const confirmation = requiredString(obj.password_confirmation, 'password_confirmation', errs);
  if (password !== undefined && confirmation !== undefined && confirmation !== password) {
    errs.add('password_confirmation', "doesn't match Password");
  }
  return password;
}

/**
 * Adds the problem of the first invalid name to `field` (the shared docset name rules of
 * @docqa/common, so a scope can name exactly the docsets POST /index can create). True when all
 * names are valid.
 */
export function checkDocsetNames(names: unknown[], field: string, errs: FieldErrors): boolean {
  for (const n of names) {
    const problem = docsetNameProblem(n);
    if (problem) {
      errs.add(field, `contains an invalid name (a docset name ${problem})`);
      return false;
    }
  }
  return true;
}

/** Accepts `true`, `"true"`, `"1"` and `1` (form-style booleans); everything else is not accepted. */
function accepted(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}

export function normalizeEmail(email: string): string {
  return email.trim();
}

export function parseRegister(body: unknown, requireTerms: boolean): RegisterCommand {
  const user = wrapper(body, 'user');
  const errs = new FieldErrors();
  let email = requiredString(user.email, 'email', errs);
  if (email !== undefined) {
    email = normalizeEmail(email);
    if (email.length > EMAIL_MAX) errs.add('email', `is too long (maximum is ${EMAIL_MAX} characters)`);
    else if (!EMAIL_SHAPE.test(email)) errs.add('email', 'is invalid');
  }
  const password = checkNewPassword(user, errs, email);
  const name = optionalString(user.name, 'name', errs, NAME_MAX)?.trim() ?? '';
  const termsAccepted = accepted(user.terms_of_service);
  if (requireTerms && !termsAccepted) errs.add('terms_of_service', 'must be accepted');
  errs.throwIfAny();
  return { email: email as string, password: password as string, name, termsAccepted };
}

export function parseLogin(body: unknown): LoginCommand {
  const obj = isObject(body) ? body : {};
  const email = typeof obj.email === 'string' ? normalizeEmail(obj.email) : '';
  const password = typeof obj.password === 'string' ? obj.password : '';
  if (!email) throw missingParam('email');
  if (!password) throw missingParam('password');
  const otp = obj.otp_attempt;
  const otpAttempt =
    typeof otp === 'string' && otp.trim() !== ''
      ? otp.trim()
      : typeof otp === 'number'
        ? String(otp)
        : undefined;
  return { email: email.slice(0, EMAIL_MAX + 1), password: password.slice(0, PASSWORD_MAX + 1), otpAttempt };
}

export function parseChangePassword(body: unknown): ChangePasswordCommand {
  const user = wrapper(body, 'user');
  const errs = new FieldErrors();
  const currentPassword = requiredString(user.current_password, 'current_password', errs);
  const password = checkNewPassword(user, errs);
  errs.throwIfAny();
  return { currentPassword: currentPassword as string, password: password as string };
}

export function parseCreateToken(body: unknown): CreateTokenCommand {
  const obj = isObject(body) ? body : {};
  const errs = new FieldErrors();
  const name = requiredString(typeof obj.name === 'string' ? obj.name.trim() : obj.name, 'name', errs);
  if (name !== undefined && name.length > TOKEN_NAME_MAX) {
    errs.add('name', `is too long (maximum is ${TOKEN_NAME_MAX} characters)`);
  }
  let readOnly = false;
  if (obj.read_only !== undefined && obj.read_only !== null) {
    if (typeof obj.read_only !== 'boolean') errs.add('read_only', 'must be true or false');
    else readOnly = obj.read_only;
  }
  let docSetNames: string[] | null = null;
  if (obj.docset_names !== undefined && obj.docset_names !== null) {
    const v = obj.docset_names;
    if (!Array.isArray(v)) errs.add('docset_names', 'must be an array of docset names');
    else if (v.length === 0) errs.add('docset_names', "can't be empty (omit it for every docset)");
    else if (v.length > TOKEN_DOCSETS_MAX)
      errs.add('docset_names', `is too long (maximum is ${TOKEN_DOCSETS_MAX} names)`);
    else if (checkDocsetNames(v, 'docset_names', errs)) docSetNames = [...new Set(v as string[])];
  }
  errs.throwIfAny();
  return { name: name as string, readOnly, docSetNames };
}

export function parseCreateAccount(body: unknown): CreateAccountCommand {
  const obj = isObject(body) ? body : {};
  const errs = new FieldErrors();
  const name = requiredString(typeof obj.name === 'string' ? obj.name.trim() : obj.name, 'name', errs);
  if (name !== undefined && name.length > NAME_MAX)
    errs.add('name', `is too long (maximum is ${NAME_MAX} characters)`);
  errs.throwIfAny();
  return { name: name as string };
}

export function parseOtpAttempt(body: unknown): string {
  const obj = isObject(body) ? body : {};
  const v = typeof obj.otp_attempt === 'number' ? String(obj.otp_attempt) : obj.otp_attempt;
  const errs = new FieldErrors();
  const code = requiredString(typeof v === 'string' ? v.trim() : v, 'otp_attempt', errs);
  errs.throwIfAny();
  return code as string;
}

export function parseDisableTwoFactor(body: unknown): DisableTwoFactorCommand {
  const obj = isObject(body) ? body : {};
  const otp = typeof obj.otp_attempt === 'number' ? String(obj.otp_attempt) : obj.otp_attempt;
  const otpAttempt = typeof otp === 'string' && otp.trim() !== '' ? otp.trim() : undefined;
  const password = typeof obj.password === 'string' && obj.password !== '' ? obj.password : undefined;
  if (!otpAttempt && !password) {
    throw unprocessable({ otp_attempt: ["can't be blank (send a current code or the password)"] });
  }
  return { otpAttempt, password };
}
