import { AccountEntity, AccountUserEntity } from './account.entity';
import { ApiTokenEntity, ChatbotKeyEntity, RateLimitWindowEntity } from './credential.entity';
import { DocumentEntity, DocumentPageEntity } from './document.entity';
import { IndexRunEntity, MailOutboxEntity } from './index-run.entity';
import { UserEntity } from './user.entity';

export * from './account.entity';
export * from './credential.entity';
export * from './document.entity';
export * from './index-run.entity';
export * from './user.entity';

export const ENTITIES = [
  UserEntity,
  AccountEntity,
  AccountUserEntity,
  ApiTokenEntity,
  ChatbotKeyEntity,
  RateLimitWindowEntity,
  DocumentEntity,
  DocumentPageEntity,
  IndexRunEntity,
  MailOutboxEntity,
];
