import { createHash } from 'node:crypto';
import { AuthError, ConfidentialClientApplication, Configuration, LogLevel } from '@azure/msal-node';
import { MsalNetworkModule, SourceFetch } from '../http/source-fetch';
import { SourceError } from '../source.port';
import type { SharePointCredentials } from './sharepoint-credentials';

export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';
export const DEFAULT_GRAPH_BASE_URL = 'https://graph.microsoft.com/v1.0';

/**
 * Authority metadata MSAL would otherwise fetch from the internet (instance discovery and the
 * OpenID configuration). Handing it over keeps sign-in to one request, to the token endpoint of
 * MS_AUTHORITY_HOST, which also lets a sovereign cloud or a local test server stand in.
 */
export function offlineAuthorityConfig(authorityHost: string, tenantId: string): Configuration['auth'] {
  const host = authorityHost.replace(/\/+$/, '');
  const hostName = new URL(host).host;
  const tenant = encodeURIComponent(tenantId);
  const authority = `${host}/${tenant}`;
  return {
    clientId: '',
    authority,
    knownAuthorities: [hostName],
    authorityMetadata: JSON.stringify({
      token_endpoint: `${authority}/oauth2/v2.0/token`,
      authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
      end_session_endpoint: `${authority}/oauth2/v2.0/logout`,
      issuer: `${host}/${tenant}/v2.0`,
      jwks_uri: `${authority}/discovery/v2.0/keys`,
    }),
    cloudDiscoveryMetadata: JSON.stringify({
      tenant_discovery_endpoint: `${authority}/v2.0/.well-known/openid-configuration`,
      'api-version': '1.1',
      metadata: [{ preferred_network: hostName, preferred_cache: hostName, aliases: [hostName] }],
    }),
  };
}

/** AADSTS codes that mean "this tenant, app or credential is wrong", not "try again". */
const TENANT_NOT_FOUND = /AADSTS(90002|90072|500011)/;

/**
 * App-only (client credentials) tokens for Microsoft Graph through MSAL. One MSAL application per
 * credential set, kept for the life of the process so its token cache spares a sign-in per call.
 */
export class GraphTokenProvider {
  private readonly apps = new Map<string, ConfidentialClientApplication>();
  private readonly network: MsalNetworkModule;

  constructor(
    private readonly authorityHost: string,
    /** `https://graph.microsoft.com/.default`, or the configured Graph origin's. */
    private readonly scope: string,
    fetchFn: SourceFetch,
  ) {
    this.network = new MsalNetworkModule(fetchFn);
  }

  async token(c: SharePointCredentials): Promise<string> {
    try {
      const res = await this.app(c).acquireTokenByClientCredential({ scopes: [this.scope] });
      if (!res?.accessToken)
        throw new SourceError('ACCESS_DENIED', this.subject(c) + ': no access token was issued');
      return res.accessToken;
    } catch (err) {
      throw this.toSourceError(err, c);
    }
  }

  private subject(c: SharePointCredentials): string {
    return `SharePoint sign-in for tenant "${c.tenantId}" and client "${c.clientId}"`;
  }

  private toSourceError(err: unknown, c: SharePointCredentials): SourceError {
    if (err instanceof SourceError) return err;
    if (err instanceof AuthError) {
      const code = err.errorCode || 'error';
      const text = `${err.errorMessage ?? ''} ${err.subError ?? ''}`;
      if (TENANT_NOT_FOUND.test(text) || code === 'invalid_tenant')
        return new SourceError(
          'NOT_FOUND',
          `${this.subject(c)}: the tenant or application was not found (${code})`,
        );
      if (
        [
          'invalid_client',
          'unauthorized_client',
          'invalid_grant',
          'invalid_request',
          'invalid_scope',
        ].includes(code)
      )
        return new SourceError(
          'ACCESS_DENIED',
          `${this.subject(c)}: the client secret or certificate was rejected (${code})`,
        );
      if (/network|timed?_?out|endpoints_resolution|post_request_failed/i.test(code))
        return new SourceError(
          'UNAVAILABLE',
          `${this.subject(c)}: the identity service did not answer (${code})`,
        );
      return new SourceError('UNAVAILABLE', `${this.subject(c)}: sign-in failed (${code})`);
    }
    return new SourceError('UNAVAILABLE', `${this.subject(c)}: the identity service did not answer`);
  }

  private app(c: SharePointCredentials): ConfidentialClientApplication {
    const key = createHash('sha256')
      .update(JSON.stringify([c.tenantId, c.clientId, c.clientSecret, c.certificate]))
      .digest('hex');
    let app = this.apps.get(key);
    if (!app) {
      const auth = offlineAuthorityConfig(this.authorityHost, c.tenantId);
      app = new ConfidentialClientApplication({
        auth: {
          ...auth,
          clientId: c.clientId,
          ...(c.clientSecret
            ? { clientSecret: c.clientSecret }
            : {
                clientCertificate: {
                  ...(c.certificate!.thumbprint.length === 64
                    ? { thumbprintSha256: c.certificate!.thumbprint }
                    : { thumbprint: c.certificate!.thumbprint }),
                  privateKey: c.certificate!.privateKey,
                  ...(c.certificate!.x5c ? { x5c: c.certificate!.x5c } : {}),
                },
              }),
        },
        system: {
          networkClient: this.network,
          // MSAL's own logger stays silent: its messages can carry request details.
          loggerOptions: {
            piiLoggingEnabled: false,
            logLevel: LogLevel.Error,
            loggerCallback: () => undefined,
          },
        },
      });
      if (this.apps.size >= 64) this.apps.delete(this.apps.keys().next().value as string);
      this.apps.set(key, app);
    }
    return app;
  }
}
