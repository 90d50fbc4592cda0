import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * Passwords refused even when long enough: the ~49,000 most common passwords of leaked-password
 * corpora, as the maintained `@zxcvbn-ts/language-common` package ships them (lower case), and the
 * user's own e-mail address. Both are compared without regard to letter case.
 */
export const COMMON_PASSWORD = 'is too common (it is on lists of leaked passwords)';
export const PASSWORD_IS_EMAIL = "can't be your e-mail address";

let common: ReadonlySet<string> | undefined;

function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary['passwords-common'] as string[]);
  return common;
}

export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase());
}

/** The policy's message for `password` of the user with `email`, if it breaks the policy. */
export function passwordPolicyProblem(password: string, email: string | undefined): string | undefined {
  if (email !== undefined && password.trim().toLowerCase() === email.trim().toLowerCase())
    return PASSWORD_IS_EMAIL;
  if (isCommonPassword(password)) return COMMON_PASSWORD;
  return undefined;
}
