import 'reflect-metadata';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { getMetadataStorage } from 'class-validator';
import {
  parseChangePassword,
  parseCreateAccount,
  parseCreateToken,
  parseRegister,
  PASSWORD_MIN,
} from '@docqa/accounts';
import { parseAskQuestion, parseCreateKey, parseSupportEmail, parseUpdateKey } from '@docqa/chatbot';
import { DomainError } from '@docqa/common';
import * as accountDtos from './accounts/accounts.dto';
import { AccountsController } from './accounts/accounts.controller';
import { ApiTokensController } from './accounts/api-tokens.controller';
import { AuthController } from './accounts/auth.controller';
import { TwoFactorController } from './accounts/two-factor.controller';
import { UsersController } from './accounts/users.controller';
import * as chatbotDtos from './chatbot/chatbot.dto';
import { ChatbotSettingsController } from './chatbot/chatbot-settings.controller';
import { ChatbotController } from './chatbot/chatbot.controller';
import { AskController } from './document-proxy/ask.controller';
import { IndexingController } from './indexing/indexing.controller';

// docs/conventions.md "Validation: one approach per wire format".

/** @nestjs/swagger's metadata key of `@ApiProperty` options (its constants are not exported). */
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';

type Ctor = abstract new (...args: never[]) => unknown;

/** The classes of whole-object `@Body()` parameters of a controller's routes. */
function bodyTypes(controller: Ctor): unknown[] {
  const out: unknown[] = [];
  for (const method of Object.getOwnPropertyNames(controller.prototype)) {
    const args: Record<string, { index: number; data?: unknown }> =
      Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {};
    const types: unknown[] = Reflect.getMetadata('design:paramtypes', controller.prototype, method) ?? [];
    for (const [key, arg] of Object.entries(args))
      if (key.split(':')[0] === String(RouteParamtypes.BODY) && arg.data === undefined)
        out.push(types[arg.index]);
  }
  return out;
}

const hasValidationRules = (cls: unknown) =>
  typeof cls === 'function' &&
  getMetadataStorage().getTargetValidationMetadatas(cls as Ctor, '', true, false).length > 0;

describe('one validation approach per wire format', () => {
  it('Account and chatbot routes take raw bodies (their libs parse them), never validated DTOs', () => {
    const parserSurfaces = [
      UsersController,
      AuthController,
      AccountsController,
      ApiTokensController,
      TwoFactorController,
      ChatbotController,
      ChatbotSettingsController,
    ];
    const types = parserSurfaces.flatMap(bodyTypes);
    expect(types.length).toBeGreaterThanOrEqual(10);
    expect(types.filter((t) => t !== Object)).toEqual([]);
    const dtoClasses = [...Object.values(accountDtos), ...Object.values(chatbotDtos)].filter(
      (v) => typeof v === 'function' && /Dto$/.test(v.name),
    );
    expect(dtoClasses.length).toBeGreaterThan(20);
    expect(dtoClasses.filter(hasValidationRules).map((c) => c.name)).toEqual([]);
  });

  it('Document API bodies are class-validator DTOs', () => {
    const types = [AskController, IndexingController].flatMap(bodyTypes);
    expect(types.length).toBeGreaterThanOrEqual(4);
    expect(types.filter((t) => !hasValidationRules(t))).toEqual([]);
  });

  /** The messages a parser gives `field` for `body`, or [] when it accepts that field. */
  function messages(parse: (body: unknown) => unknown, body: unknown, field: string): string[] {
    try {
      parse(body);
      return [];
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      return e.fieldErrors?.[field] ?? [];
    }
  }

  const documented = (dto: Ctor, prop: string): { minLength?: number; maxLength?: number } =>
    Reflect.getMetadata(API_MODEL_PROPERTIES, dto.prototype, prop) ?? {};

  // A password the policy accepts, of any length from PASSWORD_MIN on.
  const password = (n: number) => 'Vq7#kLm2'.padEnd(n, 'xZ4!pR9@wT').slice(0, n);

  const cases: Array<{
    dto: Ctor;
    prop: string;
    parse: (body: unknown) => unknown;
    body: (v: string) => unknown;
    value?: (n: number) => string;
    /** The field the parser names (default `prop`) and its refusal (default "too long"). */
    field?: string;
    tooLong?: string;
  }> = [
    {
      dto: accountDtos.RegisterUserFieldsDto,
      prop: 'password',
      parse: (b) => parseRegister(b, false),
      body: (v) => ({ user: { email: 'ada@example.com', password: v, password_confirmation: v } }),
      value: password,
    },
    {
      dto: accountDtos.RegisterUserFieldsDto,
      prop: 'name',
      parse: (b) => parseRegister(b, false),
      body: (v) => ({
        user: {
          email: 'ada@example.com',
          password: password(12),
          password_confirmation: password(12),
          name: v,
        },
      }),
    },
    {
      dto: accountDtos.ChangePasswordFieldsDto,
      prop: 'password',
      parse: parseChangePassword,
      body: (v) => ({ user: { current_password: 'old', password: v, password_confirmation: v } }),
      value: password,
    },
    {
      dto: accountDtos.CreateAccountDto,
      prop: 'name',
      parse: parseCreateAccount,
      body: (v) => ({ name: v }),
    },
    { dto: accountDtos.CreateTokenDto, prop: 'name', parse: parseCreateToken, body: (v) => ({ name: v }) },
    {
      dto: chatbotDtos.AskQuestionDto,
      prop: 'question',
      parse: parseAskQuestion,
      body: (v) => ({ question: v }),
    },
    {
      dto: chatbotDtos.ChatbotMessageDto,
      prop: 'content',
      parse: parseAskQuestion,
      body: (v) => ({ question: 'q', past_messages: [{ role: 'user', content: v }] }),
      field: 'past_messages',
      tooLong: 'characters }',
    },
    {
      dto: chatbotDtos.SupportEmailDto,
      prop: 'message',
      parse: parseSupportEmail,
      body: (v) => ({ message: v }),
    },
    { dto: chatbotDtos.CreateChatbotKeyDto, prop: 'name', parse: parseCreateKey, body: (v) => ({ name: v }) },
    { dto: chatbotDtos.UpdateChatbotKeyDto, prop: 'name', parse: parseUpdateKey, body: (v) => ({ name: v }) },
  ];

  it.each(cases.map((c) => [`${c.dto.name}.${c.prop}`, c] as const))(
    'the documented length limits of %s are the ones its parser enforces',
    (_name, c) => {
      const { minLength, maxLength } = documented(c.dto, c.prop);
      const value = c.value ?? ((n: number) => 'a'.repeat(n));
      expect(maxLength).toEqual(expect.any(Number));
      const field = c.field ?? c.prop;
      expect(messages(c.parse, c.body(value(maxLength!)), field)).toEqual([]);
      expect(messages(c.parse, c.body(value(maxLength! + 1)), field)).toEqual([
        expect.stringContaining(c.tooLong ?? 'too long'),
      ]);
      if (minLength !== undefined) {
        expect(minLength).toBe(PASSWORD_MIN);
        expect(messages(c.parse, c.body(value(minLength)), field)).toEqual([]);
        expect(messages(c.parse, c.body(value(minLength - 1)), field)).toEqual([
          expect.stringContaining('too short'),
        ]);
      }
    },
  );
});
