import { DomainError, ErrorCode } from '@docqa/common';
import {
  EMAIL_MAX,
  isEmail,
  parseChangePassword,
  parseCreateAccount,
  parseCreateToken,
  parseDisableTwoFactor,
  parseLogin,
  parseOtpAttempt,
  parseRegister,
} from './commands';
import { COMMON_PASSWORD, PASSWORD_IS_EMAIL, passwordPolicyProblem } from './users/password-policy';

function failure(fn: () => unknown): {
  status: number;
  code: ErrorCode;
  errors?: Record<string, string[]>;
  message: string;
} {
  try {
    fn();
  } catch (e) {
    const d = e as DomainError;
    return { status: d.status, code: d.code, errors: d.fieldErrors, message: d.message };
  }
  throw new Error('expected a failure');
}

const valid = { email: ' Ada@Example.com ', password: 'longenough', password_confirmation: 'longenough' };

describe('parseRegister', () => {
  it('builds the command with a trimmed e-mail and optional name', () => {
    expect(parseRegister({ user: valid }, false)).toEqual({
      email: 'Ada@Example.com',
      password: 'longenough',
      name: '',
      termsAccepted: false,
    });
    expect(parseRegister({ user: { ...valid, name: ' Ada ', terms_of_service: true } }, true)).toMatchObject({
      name: 'Ada',
      termsAccepted: true,
    });
  });

  it('is 400 without the user object', () => {
    for (const body of [undefined, null, {}, { user: 'x' }, { user: [] }, []]) {
      const f = failure(() => parseRegister(body, false));
      expect(f.status).toBe(400);
      expect(f.message).toContain('user');
    }
  });

  it('reports every invalid field at once as 422', () => {
    const f = failure(() =>
      parseRegister(
        { user: { email: 'nope', password: 'short', password_confirmation: 'other', name: 5 } },
        true,
      ),
    );
    expect(f.status).toBe(422);
    expect(f.code).toBe(ErrorCode.UNPROCESSABLE);
    expect(f.errors).toEqual({
      email: ['is invalid'],
      password: ['is too short (minimum is 8 characters)'],
      password_confirmation: ["doesn't match Password"],
      name: ['must be a string'],
      terms_of_service: ['must be accepted'],
    });
    expect(f.message).toMatch(/^Validation failed: Email is invalid, Password is too short/);
  });

  it('requires every field', () => {
    const f = failure(() => parseRegister({ user: {} }, false));
    expect(Object.keys(f.errors ?? {}).sort()).toEqual(['email', 'password', 'password_confirmation']);
    expect(f.errors?.email).toEqual(["can't be blank"]);
  });

  it('rejects e-mails without a domain and overly long passwords', () => {
    for (const email of ['a@b', 'a b@c.de', '@c.de', 'a@@c.de', 'a@c.d']) {
      expect(failure(() => parseRegister({ user: { ...valid, email } }, false)).errors?.email).toEqual([
        'is invalid',
      ]);
    }
    const long = 'x'.repeat(129);
    expect(
      failure(() => parseRegister({ user: { ...valid, password: long, password_confirmation: long } }, false))
        .errors?.password,
    ).toEqual(['is too long (maximum is 128 characters)']);
  });
});

describe('other commands', () => {
  it('parseLogin needs email and password (400)', () => {
    expect(parseLogin({ email: 'a@b.co', password: 'pw', otp_attempt: 123456 })).toEqual({
      email: 'a@b.co',
      password: 'pw',
      otpAttempt: '123456',
    });
    expect(parseLogin({ email: 'a@b.co', password: 'pw', otp_attempt: '' }).otpAttempt).toBeUndefined();
    expect(failure(() => parseLogin({ password: 'x' })).status).toBe(400);
    expect(failure(() => parseLogin({ email: 'a@b.co' })).status).toBe(400);
  });

  it('parseChangePassword checks the current password is present and the new one matches', () => {
    expect(failure(() => parseChangePassword({})).status).toBe(400);
    const f = failure(() =>
      parseChangePassword({ user: { password: 'tidal-lantern-7', password_confirmation: 'x' } }),
    );
    expect(f.status).toBe(422);
    expect(f.errors).toEqual({
      current_password: ["can't be blank"],
      password_confirmation: ["doesn't match Password"],
    });
  });

  it('refuses common passwords (any letter case) and the e-mail address as the password', () => {
    const withPassword = (password: string) => () =>
      parseRegister({ user: { ...valid, password, password_confirmation: password } }, false);
    expect(failure(withPassword('12345678')).errors).toEqual({ password: [COMMON_PASSWORD] });
    expect(failure(withPassword('Sunshine1')).errors).toEqual({ password: [COMMON_PASSWORD] });
    expect(failure(withPassword('ada@example.COM')).errors).toEqual({ password: [PASSWORD_IS_EMAIL] });
    expect(parseRegister({ user: valid }, false).password).toBe('longenough');
    // Change of password: the common list here, the e-mail in the service (it knows the address).
    const change = (password: string) => () =>
      parseChangePassword({ user: { current_password: 'x', password, password_confirmation: password } });
    expect(failure(change('iloveyou')).errors).toEqual({ password: [COMMON_PASSWORD] });
    expect(passwordPolicyProblem('Ada@example.com', 'ada@example.com')).toBe(PASSWORD_IS_EMAIL);
    expect(passwordPolicyProblem('tidal-lantern-7', 'ada@example.com')).toBeUndefined();
  });

  it('parseCreateToken validates name, read_only and docset_names', () => {
    expect(parseCreateToken({ name: ' ci ' })).toEqual({ name: 'ci', readOnly: false, docSetNames: null });
    expect(parseCreateToken({ name: 'ci', read_only: true, docset_names: ['a', 'a', 'b'] })).toEqual({
      name: 'ci',
      readOnly: true,
      docSetNames: ['a', 'b'],
    });
    const f = failure(() => parseCreateToken({ name: '', read_only: 'yes', docset_names: [] }));
    expect(Object.keys(f.errors ?? {}).sort()).toEqual(['docset_names', 'name', 'read_only']);
    expect(
      failure(() => parseCreateToken({ name: 'x', docset_names: [''] })).errors?.docset_names,
    ).toHaveLength(1);
  });

  it('parseCreateAccount, parseOtpAttempt and parseDisableTwoFactor', () => {
    expect(parseCreateAccount({ name: ' Team ' })).toEqual({ name: 'Team' });
    expect(failure(() => parseCreateAccount({})).errors).toEqual({ name: ["can't be blank"] });
    expect(parseOtpAttempt({ otp_attempt: ' 123456 ' })).toBe('123456');
    expect(failure(() => parseOtpAttempt({})).status).toBe(422);
    expect(parseDisableTwoFactor({ password: 'pw' })).toEqual({ otpAttempt: undefined, password: 'pw' });
    expect(failure(() => parseDisableTwoFactor({})).status).toBe(422);
  });
});

describe('isEmail (users and the chatbot support address)', () => {
  it('accepts local@domain.tld up to EMAIL_MAX characters and nothing else', () => {
    expect(isEmail('help@example.com')).toBe(true);
    expect(isEmail(`${'a'.repeat(EMAIL_MAX - '@example.com'.length)}@example.com`)).toBe(true);
    expect(isEmail(`${'a'.repeat(EMAIL_MAX - '@example.com'.length + 1)}@example.com`)).toBe(false);
    for (const bad of ['help', 'help@example', 'a b@example.com', '<a>@example.com', 'a@example.c', ''])
      expect(isEmail(bad)).toBe(false);
  });
});
