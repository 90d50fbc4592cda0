import * as fs from 'node:fs';
import * as tls from 'node:tls';
import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-node';
import { Agent } from 'undici';

/** The `fetch` every SaaS connector uses (MSAL, the Graph client, the Drive client, token calls). */
export type SourceFetch = typeof fetch;

/**
 * `fetch` for outbound source connections. With SOURCE_CA_FILE set (a TLS-inspecting proxy, a
 * private cloud endpoint, or a test stand-in), its certificate authorities are trusted in
 * addition to the system roots; otherwise this is the global fetch.
 */
export function createSourceFetch(caFile: string | undefined): SourceFetch {
  if (!caFile) return fetch;
  const ca = [...tls.rootCertificates, fs.readFileSync(caFile, 'utf8')];
  const dispatcher = new Agent({ connect: { ca } });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    fetch(input, { ...(init ?? {}), dispatcher } as unknown as RequestInit)) as SourceFetch;
}

/**
 * MSAL's network module on top of a SourceFetch (MSAL's own HttpClient uses the global fetch with
 * the system roots only). Same contract: JSON body, header dictionary, status.
 */
export class MsalNetworkModule implements INetworkModule {
  constructor(private readonly fetchFn: SourceFetch) {}

  sendGetRequestAsync<T>(
    url: string,
    options?: NetworkRequestOptions,
    timeout?: number,
  ): Promise<NetworkResponse<T>> {
    return this.send<T>(url, 'GET', options, timeout);
  }

  sendPostRequestAsync<T>(url: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> {
    return this.send<T>(url, 'POST', options, 30_000);
  }

  private async send<T>(
    url: string,
    method: string,
    options: NetworkRequestOptions | undefined,
    timeout: number | undefined,
  ): Promise<NetworkResponse<T>> {
    const res = await this.fetchFn(url, {
      method,
      headers: options?.headers ?? {},
      body: method === 'POST' ? (options?.body ?? '') : undefined,
      signal: AbortSignal.timeout(timeout ?? 30_000),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const text = await res.text();
    let body: unknown = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      body = { error: 'invalid_response', error_description: `HTTP ${res.status}` };
    }
    return { headers, body: body as T, status: res.status };
  }
}
