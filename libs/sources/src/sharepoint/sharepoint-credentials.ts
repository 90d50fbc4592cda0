import { DomainError } from '@docqa/common';
import {
  credentialsObject,
  field,
  noControl,
  optionalPlainString,
  optionalString,
  requiredString,
} from '../credential-fields';

/** Certificate credential of an Entra ID app registration (instead of a client secret). */
export interface SharePointCertificate {
  /** SHA-1 (40 hex) or SHA-256 (64 hex) thumbprint of the certificate uploaded to the app. */
  thumbprint: string;
  /** PEM private key of that certificate. */
  privateKey: string;
  /** Optional PEM public certificate chain, sent as x5c (subject-name/issuer auth). */
  x5c?: string;
}

/** Validated SharePoint source settings of one request. */
export interface SharePointCredentials {
  tenantId: string;
  clientId: string;
  clientSecret?: string;
  certificate?: SharePointCertificate;
  siteId: string;
  driveId: string;
  /** Folder inside the drive, without leading or trailing slash; '' is the drive root. */
  folderPath: string;
}

const ALLOWED = [
  'tenantId',
  'clientId',
  'clientSecret',
  'certificate',
  'siteId',
  'driveId',
  'folderPath',
] as const;
const SERVER_CONFIG_FIELDS = new Set([
  'endpoint',
  'host',
  'hostname',
  'url',
  'authority',
  'authorityHost',
  'graphBaseUrl',
  'baseUrl',
  'tokenUrl',
]);
/** A tenant GUID or a verified domain (contoso.onmicrosoft.com). */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]{0,254}$/;
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
/** Graph site ids look like `contoso.sharepoint.com,<site guid>,<web guid>`. */
const SITE_ID = /^[A-Za-z0-9][A-Za-z0-9.,:_-]{0,511}$/;
/** Graph drive ids look like `b!<base64url>`. */
const DRIVE_ID = /^[A-Za-z0-9!_-]{1,256}$/;
const THUMBPRINT = /^(?:[0-9A-Fa-f]{40}|[0-9A-Fa-f]{64})$/;
/** Characters SharePoint forbids in names, plus the ones that would break Graph path addressing. */
const BAD_PATH_CHARS = /["*:<>?#%\\|]/;

/** `/Shared Documents/Reports/` -> `Shared Documents/Reports`; rejects `..`, `//` and reserved characters. */
export function normalizeFolderPath(raw: string | undefined, path = field('folderPath')): string {
  if (raw === undefined) return '';
  noControl(path, raw);
  if (BAD_PATH_CHARS.test(raw))
    throw DomainError.validation(path, `${path} must not contain any of " * : < > ? # % \\ |`);
  const trimmed = raw.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return '';
  const parts = trimmed.split('/');
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..' || p.trim() !== p)
      throw DomainError.validation(path, `${path} has an empty, "." or ".." segment or one with edge spaces`);
  }
  return parts.join('/');
}

/**
 * `credentials` of a SHAREPOINT index request:
 * `{ tenantId, clientId, clientSecret | certificate: { thumbprint, privateKey, x5c? }, siteId,
 * driveId, folderPath? }`. The authority host and Graph base URL are server configuration
 * (MS_AUTHORITY_HOST, GRAPH_BASE_URL) and can never come from a request.
 */
export function parseSharePointCredentials(raw: unknown): SharePointCredentials {
  const obj = credentialsObject(raw, 'SharePoint', ALLOWED, SERVER_CONFIG_FIELDS);
  const tenantId = requiredString(obj, 'tenantId', 255);
  if (!TENANT.test(tenantId))
    throw DomainError.validation(field('tenantId'), 'credentials.tenantId must be a tenant id or domain');
  const clientId = requiredString(obj, 'clientId', 64);
  if (!CLIENT_ID.test(clientId))
    throw DomainError.validation(
      field('clientId'),
      'credentials.clientId must be an application (client) id',
    );
  const siteId = requiredString(obj, 'siteId', 512);
  if (!SITE_ID.test(siteId))
    throw DomainError.validation(field('siteId'), 'credentials.siteId is not a Microsoft Graph site id');
  const driveId = requiredString(obj, 'driveId', 256);
  if (!DRIVE_ID.test(driveId))
    throw DomainError.validation(field('driveId'), 'credentials.driveId is not a Microsoft Graph drive id');
  const folderPath = normalizeFolderPath(optionalString(obj, 'folderPath', 1024));

  const clientSecret = optionalPlainString(obj, 'clientSecret', 1024);
  let certificate: SharePointCertificate | undefined;
  if (obj.certificate !== undefined && obj.certificate !== null) {
    const c = obj.certificate;
    if (typeof c !== 'object' || Array.isArray(c))
      throw DomainError.validation(field('certificate'), 'credentials.certificate must be an object');
    const co = c as Record<string, unknown>;
    for (const key of Object.keys(co))
      if (!['thumbprint', 'privateKey', 'x5c'].includes(key))
        throw DomainError.validation(
          `credentials.certificate.${key}`,
          `credentials.certificate.${key} is not a known certificate field`,
        );
    const thumbprint = requiredString(co, 'thumbprint', 64, 'credentials.certificate.thumbprint');
    if (!THUMBPRINT.test(thumbprint))
      throw DomainError.validation(
        'credentials.certificate.thumbprint',
        'credentials.certificate.thumbprint must be a SHA-1 or SHA-256 hex thumbprint',
      );
    const privateKey = requiredString(co, 'privateKey', 16384, 'credentials.certificate.privateKey');
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey))
      throw DomainError.validation(
        'credentials.certificate.privateKey',
        'credentials.certificate.privateKey must be a PEM private key',
      );
    const x5c = optionalString(co, 'x5c', 32768, 'credentials.certificate.x5c');
    certificate = { thumbprint: thumbprint.toLowerCase(), privateKey, ...(x5c ? { x5c } : {}) };
  }
  if (!clientSecret === !certificate)
    throw DomainError.validation(
      field('clientSecret'),
      'exactly one of credentials.clientSecret and credentials.certificate is required',
    );
  return {
    tenantId,
    clientId,
    ...(clientSecret ? { clientSecret } : { certificate }),
    siteId,
    driveId,
    folderPath,
  };
}
