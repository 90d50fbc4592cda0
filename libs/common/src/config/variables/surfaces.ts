import type { ConfigVariable } from '../config.schema';

/** Streaming, mail, chatbot, SaaS endpoints, metrics and request limits. */
export const SURFACES_VARIABLES = [
  {
    name: 'SMTP_URL',
    kind: 'url',
    secret: true,
    description: 'smtp:// or smtps:// URL for support e-mail. Unset: support e-mail answers 503.',
  },
  {
    name: 'MAIL_FROM',
    kind: 'string',
    default: 'DocQA <no-reply@docqa.invalid>',
    description:
      'From address of support e-mail (the requester goes into Reply-To). Use an address your SMTP relay may send as.',
  },
  {
    name: 'GRAPH_BASE_URL',
    kind: 'url',
    description: 'Microsoft Graph base URL override. Unset: https://graph.microsoft.com/v1.0.',
  },
  {
    name: 'MS_AUTHORITY_HOST',
    kind: 'url',
    description: 'Microsoft identity authority host override. Unset: https://login.microsoftonline.com.',
  },
  {
    name: 'GOOGLE_API_ROOT_URL',
    kind: 'url',
    description: 'Google APIs root URL override. Unset: https://www.googleapis.com/.',
  },
  {
    name: 'GOOGLE_TOKEN_URL',
    kind: 'url',
    description: 'Google OAuth token endpoint override. Unset: https://oauth2.googleapis.com/token.',
  },
  {
    name: 'SOURCE_CA_FILE',
    kind: 'string',
    description:
      'PEM file of extra certificate authorities trusted for SharePoint and Google Drive connections (a TLS-inspecting proxy or a private endpoint). Unset: the system roots only.',
  },
  {
    name: 'METRICS_ENABLED',
    kind: 'bool',
    default: 'true',
    description:
      'Serve Prometheus metrics (`GET /metrics`, plus `GET /health/live`) on METRICS_PORT in the api and the worker.',
  },
  {
    name: 'METRICS_PORT',
    kind: 'port',
    default: '9464',
    description: 'Port of the plain-HTTP Prometheus endpoint (on METRICS_HOST). 0 picks a free port (tests).',
  },
  {
    name: 'METRICS_HOST',
    kind: 'string',
    default: '127.0.0.1',
    description:
      'Address the Prometheus endpoint binds to (plain HTTP, no credential). Default loopback; set an internal address (or 0.0.0.0) only where the port is reachable from the internal network alone.',
  },
  {
    name: 'MAX_BODY_BYTES',
    kind: 'int',
    default: '1048576',
    description: 'Largest accepted JSON request body; larger gets 413.',
  },
  {
    name: 'REQUIRE_TERMS_OF_SERVICE',
    kind: 'bool',
    default: 'false',
    description: 'Require user.terms_of_service=true at registration.',
  },
] as const satisfies readonly ConfigVariable[];
