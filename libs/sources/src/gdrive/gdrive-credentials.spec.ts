import { generateKeyPairSync } from 'node:crypto';
import { DomainError, ErrorCode } from '@docqa/common';
import { parseGoogleDriveCredentials } from './gdrive-credentials';

const privateKey = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const key = {
  type: 'service_account',
  project_id: 'p',
  private_key_id: 'abc',
  private_key: privateKey,
  client_email: 'sa@p.iam.gserviceaccount.com',
  token_uri: 'https://attacker.example/token',
};

function fails(raw: unknown): DomainError {
  try {
    parseGoogleDriveCredentials(raw);
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('parseGoogleDriveCredentials', () => {
  it('accepts a key object or its JSON text, keeps only what signs, and parses its own output again', () => {
    const parsed = parseGoogleDriveCredentials({
      serviceAccountKey: JSON.stringify(key),
      folderId: 'F1',
      subject: 'a@b.com',
    });
    expect(parsed).toEqual({
      serviceAccountKey: { client_email: key.client_email, private_key: privateKey, private_key_id: 'abc' },
      subject: 'a@b.com',
      folderId: 'F1',
    });
    expect(JSON.stringify(parsed)).not.toContain('attacker');
    expect(parseGoogleDriveCredentials(parsed)).toEqual(parsed);
  });

  it('rejects endpoints, unknown fields, bad keys and a missing scope', () => {
    expect(fails({ serviceAccountKey: key, folderId: 'F', rootUrl: 'http://x' }).context.field).toBe(
      'credentials.rootUrl',
    );
    expect(fails({ serviceAccountKey: key, folderId: 'F', extra: 1 }).context.field).toBe(
      'credentials.extra',
    );
    expect(fails({ serviceAccountKey: { ...key, private_key: 'nope' }, folderId: 'F' }).context.field).toBe(
      'credentials.serviceAccountKey.private_key',
    );
    expect(fails({ serviceAccountKey: key }).context.field).toBe('credentials.folderId');
    expect(fails({ serviceAccountKey: key, folderId: "x' or '1'='1" }).context.field).toBe(
      'credentials.folderId',
    );
    expect(fails(undefined).code).toBe(ErrorCode.VALIDATION_ERROR);
  });
});
