import { DomainError, ErrorCode } from '@docqa/common';
import { checkDocsetNames, FieldErrors, isEmail, isObject, TOKEN_DOCSETS_MAX } from '@docqa/accounts';
import { normalizeOrigin } from './access/origin';

/**
 * Request parsing of the chatbot surface, validated once, where each command is built.
 * Settings and keys (Account API extensions) answer 422 with `errors` by field, like the other
 * Account API extensions; the two chatbot endpoints answer 400 (spec: "A required parameter is
 * missing or invalid"), also with `errors` by field.
 */

export const SUPPORT_MESSAGE_MAX = 2000;
export const PAST_MESSAGES_USED = 10;
export const QUESTION_MAX = 4000;
export const PAST_MESSAGE_MAX = 20000;
/** Requests may carry a longer history; only the last PAST_MESSAGES_USED are used. */
export const PAST_MESSAGES_ACCEPTED = 500;
export const KEY_NAME_MAX = 100;
export const ORIGIN_MAX = 300;

export interface UpdateSettingsCommand {
  /** undefined: unchanged; null: cleared. */
  supportEmail?: string | null;
  /** undefined: unchanged; null: every docset of the account. */
  docSetNames?: string[] | null;
}

export interface CreateKeyCommand {
  name: string;
  allowedOrigin: string | null;
}

export interface UpdateKeyCommand {
  name?: string;
  /** undefined: unchanged; null: no origin lock. */
  allowedOrigin?: string | null;
}

export interface AskQuestionCommand {
  question: string;
  /** At most the last PAST_MESSAGES_USED turns, oldest first. */
  pastMessages: Array<{ role: 'user' | 'assistant'; content: string }>;
  format: 'text' | 'html';
  stream: boolean;
}

export interface SupportEmailCommand {
  message: string;
  senderEmail: string | null;
}

function origin(v: unknown, field: string, errs: FieldErrors): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > ORIGIN_MAX) {
    errs.add(field, 'must be an origin like https://www.example.com');
    return undefined;
  }
  const o = normalizeOrigin(v);
  if (!o) errs.add(field, 'must be an origin like https://www.example.com (scheme and host, no path)');
  return o ?? undefined;
}

function keyName(v: unknown, errs: FieldErrors, required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) return 'Chatbot key';
    return undefined;
  }
  if (typeof v !== 'string') {
    errs.add('name', 'must be a string');
    return undefined;
  }
  const name = v.trim();
  if (!name) errs.add('name', "can't be blank");
  else if (name.length > KEY_NAME_MAX)
    errs.add('name', `is too long (maximum is ${KEY_NAME_MAX} characters)`);
  return name;
}

export function parseUpdateSettings(body: unknown): UpdateSettingsCommand {
  const obj = isObject(body) ? body : {};
  const errs = new FieldErrors();
  const cmd: UpdateSettingsCommand = {};
  for (const key of Object.keys(obj)) {
    if (key !== 'support_email' && key !== 'docset_names') errs.add(key, 'is not a setting');
  }
  if ('support_email' in obj) {
    const v = obj.support_email;
    if (v === null || v === '') cmd.supportEmail = null;
    else if (typeof v !== 'string' || !isEmail(v.trim())) errs.add('support_email', 'is invalid');
    else cmd.supportEmail = v.trim();
  }
  if ('docset_names' in obj) {
    const v = obj.docset_names;
    if (v === null) cmd.docSetNames = null;
    else if (!Array.isArray(v)) errs.add('docset_names', 'must be an array of docset names or null');
    else if (v.length === 0) errs.add('docset_names', "can't be empty (null means every docset)");
    else if (v.length > TOKEN_DOCSETS_MAX)
      errs.add('docset_names', `is too long (maximum is ${TOKEN_DOCSETS_MAX} names)`);
    else if (checkDocsetNames(v, 'docset_names', errs)) cmd.docSetNames = [...new Set(v as string[])];
  }
  errs.throwIfAny();
  return cmd;
}

export function parseCreateKey(body: unknown): CreateKeyCommand {
  const obj = isObject(body) ? body : {};
  const errs = new FieldErrors();
  const name = keyName(obj.name, errs, true);
  const allowedOrigin = origin(obj.allowed_origin, 'allowed_origin', errs);
  errs.throwIfAny();
  return { name: name as string, allowedOrigin: allowedOrigin ?? null };
}

export function parseUpdateKey(body: unknown): UpdateKeyCommand {
  const obj = isObject(body) ? body : {};
  const errs = new FieldErrors();
  const cmd: UpdateKeyCommand = {};
  const name = keyName(obj.name, errs, false);
  if (name !== undefined) cmd.name = name;
  if ('allowed_origin' in obj) cmd.allowedOrigin = origin(obj.allowed_origin, 'allowed_origin', errs) ?? null;
  errs.throwIfAny();
  return cmd;
}

/** 400 `{ error, errors }` naming every failing field. */
class BadRequest {
  readonly errors: Record<string, string[]> = {};
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  throwIfAny(): void {
    const entries = Object.entries(this.errors);
    if (!entries.length) return;
    const text = entries.flatMap(([f, ms]) => ms.map((m) => `${f} ${m}`)).join(', ');
    throw new DomainError(ErrorCode.VALIDATION_ERROR, text, { field: entries[0][0] }, this.errors);
  }
}

export function parseAskQuestion(body: unknown): AskQuestionCommand {
  const obj = isObject(body) ? body : {};
  const errs = new BadRequest();
  const q = obj.question;
  let question = '';
  if (typeof q !== 'string' || q.trim() === '') errs.add('question', 'is required');
  else if (q.length > QUESTION_MAX)
    errs.add('question', `is too long (maximum is ${QUESTION_MAX} characters)`);
  else question = q.trim();

  let pastMessages: AskQuestionCommand['pastMessages'] = [];
  const pm = obj.past_messages;
  if (pm !== undefined && pm !== null) {
    if (!Array.isArray(pm)) errs.add('past_messages', 'must be an array of { role, content }');
    else if (pm.length > PAST_MESSAGES_ACCEPTED)
      errs.add('past_messages', `is too long (maximum is ${PAST_MESSAGES_ACCEPTED} messages)`);
    else {
      const ok = pm.every(
        (m) =>
          isObject(m) &&
          (m.role === 'user' || m.role === 'assistant') &&
          typeof m.content === 'string' &&
          m.content.length <= PAST_MESSAGE_MAX,
      );
      if (!ok)
        errs.add(
          'past_messages',
          `must contain { role: "user" | "assistant", content: string of at most ${PAST_MESSAGE_MAX} characters }`,
        );
      // Only the last ten turns are used; older ones are ignored (spec "Limits").
      else
        pastMessages = (pm as Array<{ role: 'user' | 'assistant'; content: string }>)
          .slice(-PAST_MESSAGES_USED)
          .map((m) => ({ role: m.role, content: m.content }));
    }
  }
  let format: 'text' | 'html' = 'text';
  if (obj.format !== undefined && obj.format !== null) {
    if (obj.format === 'text' || obj.format === 'html') format = obj.format;
    else errs.add('format', 'must be "text" or "html"');
  }
  let stream = false;
  if (obj.stream !== undefined && obj.stream !== null) {
    if (typeof obj.stream === 'boolean') stream = obj.stream;
    else errs.add('stream', 'must be true or false');
  }
  errs.throwIfAny();
  return { question, pastMessages, format, stream };
}

export function parseSupportEmail(body: unknown): SupportEmailCommand {
  const obj = isObject(body) ? body : {};
  const errs = new BadRequest();
  const m = obj.message;
  let message = '';
  if (typeof m !== 'string' || m.trim() === '') errs.add('message', 'is required');
  // Characters, not UTF-16 code units: an emoji counts once.
  else if ([...m].length > SUPPORT_MESSAGE_MAX)
    errs.add('message', `is too long (maximum is ${SUPPORT_MESSAGE_MAX} characters)`);
  else message = m;
  let senderEmail: string | null = null;
  const s = obj.sender_email;
  if (s !== undefined && s !== null && s !== '') {
    if (typeof s !== 'string' || !isEmail(s.trim()))
      errs.add('sender_email', 'is not a valid e-mail address');
    else senderEmail = s.trim();
  }
  errs.throwIfAny();
  return { message, senderEmail };
}
