import { ErrorCode } from '@docqa/common';
import {
  parseAskQuestion,
  parseCreateKey,
  parseSupportEmail,
  parseUpdateSettings,
  PAST_MESSAGES_USED,
  SUPPORT_MESSAGE_MAX,
} from './commands';

const turns = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i + 1}` }));

describe('chatbot commands', () => {
  it('keeps only the last ten past messages, oldest first', () => {
    const cmd = parseAskQuestion({ question: ' q ', past_messages: turns(14) });
    expect(cmd.question).toBe('q');
    expect(cmd.pastMessages).toHaveLength(PAST_MESSAGES_USED);
    expect(cmd.pastMessages[0].content).toBe('turn 5');
    expect(cmd.pastMessages[9].content).toBe('turn 14');
    expect(parseAskQuestion({ question: 'q', past_messages: turns(3) }).pastMessages).toHaveLength(3);
    expect(parseAskQuestion({ question: 'q' })).toEqual({
      question: 'q',
      pastMessages: [],
      format: 'text',
      stream: false,
    });
  });

  it('400 with every failing field', () => {
    try {
      parseAskQuestion({ format: 'pdf', stream: 1, past_messages: [{ role: 'system', content: 'x' }] });
      throw new Error('expected a failure');
    } catch (err: any) {
      expect(err.code).toBe(ErrorCode.VALIDATION_ERROR);
      expect(err.status).toBe(400);
      expect(Object.keys(err.fieldErrors).sort()).toEqual(['format', 'past_messages', 'question', 'stream']);
    }
  });

  it('support messages: required, at most 2000 characters (an emoji counts once), optional valid sender', () => {
    expect(parseSupportEmail({ message: 'x'.repeat(SUPPORT_MESSAGE_MAX) }).message).toHaveLength(2000);
    expect(parseSupportEmail({ message: '😀'.repeat(SUPPORT_MESSAGE_MAX) }).message).toHaveLength(4000);
    expect(() => parseSupportEmail({ message: 'x'.repeat(SUPPORT_MESSAGE_MAX + 1) })).toThrow(/too long/);
    expect(() => parseSupportEmail({ message: '   ' })).toThrow(/message is required/);
    expect(() => parseSupportEmail({})).toThrow(/message is required/);
    expect(parseSupportEmail({ message: 'hi', sender_email: ' a@b.example ' }).senderEmail).toBe(
      'a@b.example',
    );
    expect(parseSupportEmail({ message: 'hi', sender_email: '' }).senderEmail).toBeNull();
    expect(() => parseSupportEmail({ message: 'hi', sender_email: 'a@b\r\nBcc: x@y.example' })).toThrow(
      /sender_email/,
    );
  });

  it('settings and keys: 422 by field', () => {
    expect(parseUpdateSettings({ support_email: 'h@x.example', docset_names: ['a', 'a', 'b'] })).toEqual({
      supportEmail: 'h@x.example',
      docSetNames: ['a', 'b'],
    });
    expect(parseUpdateSettings({ docset_names: null, support_email: '' })).toEqual({
      docSetNames: null,
      supportEmail: null,
    });
    expect(() => parseUpdateSettings({ plan: 'business' })).toThrow(/Plan is not a setting/);
    expect(parseCreateKey({})).toEqual({ name: 'Chatbot key', allowedOrigin: null });
    expect(parseCreateKey({ allowed_origin: 'https://A.example:443' }).allowedOrigin).toBe(
      'https://a.example',
    );
    expect(() => parseCreateKey({ allowed_origin: 'https://a.example/x' })).toThrow(/Allowed origin/);
  });
});
