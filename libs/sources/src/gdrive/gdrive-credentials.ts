import { createPrivateKey } from 'node:crypto';
import { DomainError } from '@docqa/common';
import { credentialsObject, optionalPlainString, optionalString, requiredString } from '../credential-fields';

/** The parts of a service account key file that are used (the JWT issuer and signing key). */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

/**
 * Validated Google Drive source settings of one request. Same shape as the request (parsing its
 * own output gives it back), since runs store it encrypted and parse it again.
 */
export interface GoogleDriveCredentials {
  serviceAccountKey: ServiceAccountKey;
  /** Domain-wide delegation: the Workspace user to act as. */
  subject?: string;
  /** Folder scope (a folder id, in My Drive or a shared drive). */
  folderId?: string;
  /** Shared-drive scope (alone: the whole shared drive; with folderId: the drive that holds it). */
  driveId?: string;
}

const ALLOWED = ['serviceAccountKey', 'subject', 'folderId', 'driveId'] as const;
const SERVER_CONFIG_FIELDS = new Set([
  'endpoint',
  'host',
  'url',
  'rootUrl',
  'apiRootUrl',
  'tokenUrl',
  'tokenUri',
]);
/** Fields of a downloaded service account key file; `token_uri` and the other URLs are ignored. */
const KEY_FIELDS = new Set([
  'type',
  'project_id',
  'private_key_id',
  'private_key',
  'client_email',
  'client_id',
  'auth_uri',
  'token_uri',
  'auth_provider_x509_cert_url',
  'client_x509_cert_url',
  'universe_domain',
]);
const DRIVE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const EMAIL = /^[^\s@]{1,128}@[A-Za-z0-9.-]{1,253}$/;

/**
 * `credentials` of a GOOGLEDRIVE index request: `{ serviceAccountKey, subject?, folderId?,
 * driveId? }` with at least one of folderId and driveId. `serviceAccountKey` is the key file
 * Google issues (object or its JSON text); its `token_uri` is ignored: the token endpoint and the
 * API root are server configuration (GOOGLE_TOKEN_URL, GOOGLE_API_ROOT_URL).
 */
export function parseGoogleDriveCredentials(raw: unknown): GoogleDriveCredentials {
  const obj = credentialsObject(raw, 'Google Drive', ALLOWED, SERVER_CONFIG_FIELDS);
  let key = obj.serviceAccountKey;
  const keyField = 'credentials.serviceAccountKey';
  if (typeof key === 'string') {
    if (key.length > 16384) throw DomainError.validation(keyField, `${keyField} is too long`);
    try {
      key = JSON.parse(key) as unknown;
    } catch {
      throw DomainError.validation(keyField, `${keyField} must be a service account key (JSON)`);
    }
  }
  if (key === undefined || key === null) throw DomainError.validation(keyField, `${keyField} is required`);
  if (typeof key !== 'object' || Array.isArray(key))
    throw DomainError.validation(keyField, `${keyField} must be a service account key object`);
  const k = key as Record<string, unknown>;
  for (const f of Object.keys(k))
    if (!KEY_FIELDS.has(f))
      throw DomainError.validation(`${keyField}.${f}`, `${keyField}.${f} is not a service account key field`);
  if (k.type !== undefined && k.type !== 'service_account')
    throw DomainError.validation(`${keyField}.type`, `${keyField}.type must be "service_account"`);
  const clientEmail = requiredString(k, 'client_email', 256, `${keyField}.client_email`);
  if (!EMAIL.test(clientEmail))
    throw DomainError.validation(
      `${keyField}.client_email`,
      `${keyField}.client_email must be an e-mail address`,
    );
  const privateKey = requiredString(k, 'private_key', 8192, `${keyField}.private_key`);
  try {
    createPrivateKey(privateKey);
  } catch {
    throw DomainError.validation(
      `${keyField}.private_key`,
      `${keyField}.private_key must be a PEM private key`,
    );
  }
  const privateKeyId = optionalPlainString(k, 'private_key_id', 128, `${keyField}.private_key_id`);

  const subject = optionalString(obj, 'subject', 256);
  if (subject !== undefined && !EMAIL.test(subject))
    throw DomainError.validation(
      'credentials.subject',
      'credentials.subject must be the e-mail of a Workspace user',
    );
  const folderId = optionalString(obj, 'folderId', 128);
  if (folderId !== undefined && !DRIVE_ID.test(folderId))
    throw DomainError.validation(
      'credentials.folderId',
      'credentials.folderId is not a Google Drive folder id',
    );
  const driveId = optionalString(obj, 'driveId', 128);
  if (driveId !== undefined && !DRIVE_ID.test(driveId))
    throw DomainError.validation(
      'credentials.driveId',
      'credentials.driveId is not a Google shared drive id',
    );
  if (!folderId && !driveId)
    throw DomainError.validation(
      'credentials.folderId',
      'credentials.folderId or credentials.driveId is required (the folder or shared drive to index)',
    );
  return {
    serviceAccountKey: {
      client_email: clientEmail,
      private_key: privateKey,
      ...(privateKeyId ? { private_key_id: privateKeyId } : {}),
    },
    ...(subject ? { subject } : {}),
    ...(folderId ? { folderId } : {}),
    ...(driveId ? { driveId } : {}),
  };
}
