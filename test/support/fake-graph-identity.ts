import { createPublicKey, KeyObject, randomBytes, randomUUID, verify, X509Certificate } from 'node:crypto';
import { selfSignedLocalhost } from '../../apps/api/src/bootstrap/tls';
import type { Reply } from './fake-graph-routes';

export interface FakeGraphApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Certificate credential of the same app: PEM private key and SHA-1/SHA-256 thumbprints. */
  certificate: { privateKey: string; thumbprintSha1: string; thumbprintSha256: string };
}

/** The fake's TLS pair and its app certificate: a week is enough for any test run. */
export const selfSignedPair = () => selfSignedLocalhost(7);

/**
 * The Microsoft identity platform's token endpoint for one app registration of one tenant:
 * client credentials with the app's secret or with a client assertion signed by its certificate.
 * It remembers the access tokens it issued, which the Graph endpoints accept.
 */
export class FakeIdentity {
  private readonly tokens = new Set<string>();

  private constructor(
    readonly app: FakeGraphApp,
    private readonly appPublicKey: KeyObject,
  ) {}

  static async create(): Promise<FakeIdentity> {
    const appCert = await selfSignedPair();
    const x509 = new X509Certificate(appCert.cert);
    const app: FakeGraphApp = {
      tenantId: randomUUID(),
      clientId: randomUUID(),
      clientSecret: `secret-${randomBytes(12).toString('hex')}`,
      certificate: {
        privateKey: appCert.key,
        thumbprintSha1: x509.fingerprint.replace(/:/g, '').toLowerCase(),
        thumbprintSha256: x509.fingerprint256.replace(/:/g, '').toLowerCase(),
      },
    };
    return new FakeIdentity(app, createPublicKey(appCert.cert));
  }

  /** Whether an Authorization header carries a bearer token this endpoint issued. */
  authorizes(authorization: string): boolean {
    return authorization.startsWith('Bearer ') && this.tokens.has(authorization.slice(7));
  }

  /** The token endpoint's answer to a form posted to `/{tenant}/oauth2/v2.0/token`. */
  token(form: URLSearchParams, tenant: string): Reply {
    const app = this.app;
    if (tenant !== app.tenantId)
      return oauthError(400, {
        error: 'invalid_request',
        error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
        error_codes: [90002],
      });
    if (form.get('grant_type') !== 'client_credentials' || !form.get('scope')?.endsWith('/.default'))
      return oauthError(400, { error: 'invalid_request', error_description: 'AADSTS900144: bad request' });
    if (form.get('client_id') !== app.clientId)
      return oauthError(400, {
        error: 'unauthorized_client',
        error_description: `AADSTS700016: Application not found in the directory.`,
      });
    const assertion = form.get('client_assertion');
    const byCertificate =
      assertion !== null &&
      form.get('client_assertion_type') === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' &&
      this.validAssertion(assertion, tenant);
    if (!byCertificate && form.get('client_secret') !== app.clientSecret)
      return oauthError(401, {
        error: 'invalid_client',
        error_description: 'AADSTS7000215: Invalid client secret provided.',
        error_codes: [7000215],
      });
    const token = randomBytes(24).toString('base64url');
    this.tokens.add(token);
    return {
      status: 200,
      body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token },
    };
  }

  /** A client assertion (RFC 7523) signed with the app certificate's key, for this tenant's token URL. */
  private validAssertion(jwt: string, tenant: string): boolean {
    const parts = jwt.split('.');
    if (parts.length !== 3) return false;
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, string>;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const sig = Buffer.from(parts[2], 'base64url');
    const ok =
      header.alg === 'PS256'
        ? verify(
            'sha256',
            data,
            { key: this.appPublicKey, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 32 },
            sig,
          )
        : header.alg === 'RS256' && verify('sha256', data, this.appPublicKey, sig);
    const aud = String(claims.aud ?? '');
    return (
      ok &&
      claims.iss === this.app.clientId &&
      claims.sub === this.app.clientId &&
      aud.includes(`/${tenant}/oauth2/v2.0/token`) &&
      Number(claims.exp) > Date.now() / 1000
    );
  }
}

const oauthError = (status: number, body: Record<string, unknown>): Reply => ({ status, body });
