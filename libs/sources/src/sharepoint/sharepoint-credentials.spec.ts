import { DomainError } from '@docqa/common';
import { normalizeFolderPath, parseSharePointCredentials } from './sharepoint-credentials';
import { sharePointFolderFilter } from './sharepoint-folder-filter';

const base = {
  tenantId: 'contoso.onmicrosoft.com',
  clientId: '11111111-2222-3333-4444-555555555555',
  clientSecret: 's3cr3t',
  siteId: 'contoso.sharepoint.com,aaaa,bbbb',
  driveId: 'b!abc_DEF-123',
};

function field(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return (err as DomainError).context.field;
  }
  throw new Error('expected a DomainError');
}

describe('parseSharePointCredentials', () => {
  it('normalises the folder and parses its own output again', () => {
    const parsed = parseSharePointCredentials({ ...base, folderPath: '/Shared Documents/Reports/' });
    expect(parsed.folderPath).toBe('Shared Documents/Reports');
    expect(parseSharePointCredentials(parsed)).toEqual(parsed);
  });

  it('rejects endpoints, both or neither secret and certificate, and path tricks', () => {
    expect(field(() => parseSharePointCredentials({ ...base, authorityHost: 'https://x' }))).toBe(
      'credentials.authorityHost',
    );
    expect(field(() => parseSharePointCredentials({ ...base, clientSecret: undefined }))).toBe(
      'credentials.clientSecret',
    );
    expect(
      field(() =>
        parseSharePointCredentials({
          ...base,
          certificate: { thumbprint: 'a'.repeat(40), privateKey: '-----BEGIN PRIVATE KEY-----\nx' },
        }),
      ),
    ).toBe('credentials.clientSecret');
    expect(field(() => parseSharePointCredentials({ ...base, tenantId: 'a/../b' }))).toBe(
      'credentials.tenantId',
    );
    expect(field(() => normalizeFolderPath('a/../b'))).toBe('credentials.folderPath');
    expect(field(() => normalizeFolderPath('a:b'))).toBe('credentials.folderPath');
  });

  it('accepts a certificate instead of a secret', () => {
    const c = parseSharePointCredentials({
      ...base,
      clientSecret: undefined,
      certificate: {
        thumbprint: 'AB'.repeat(20),
        privateKey: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----',
      },
    });
    expect(c.certificate?.thumbprint).toBe('ab'.repeat(20));
    expect(c.clientSecret).toBeUndefined();
  });
});

describe('sharePointFolderFilter', () => {
  it('needs siteId, driveId and folderPath together', () => {
    expect(sharePointFolderFilter({})).toBeUndefined();
    expect(field(() => sharePointFolderFilter({ siteId: 's', folderPath: '/a' }))).toBe('driveId');
    expect(sharePointFolderFilter({ siteId: 's', driveId: 'b!d', folderPath: '/A/B/' })).toEqual({
      sourceType: 'SHAREPOINT',
      sourceIdPrefix: 'sharepoint://b!d/A/B/',
      metadata: { siteId: 's', driveId: 'b!d' },
    });
    expect(sharePointFolderFilter({ siteId: 's', driveId: 'b!d', folderPath: '/' })?.sourceIdPrefix).toBe(
      'sharepoint://b!d/',
    );
  });
});
