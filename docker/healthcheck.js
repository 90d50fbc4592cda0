#!/usr/bin/env node
// Container health check (no curl in the image). `api`: readiness over HTTPS on HTTPS_PORT
// (GET /api/v1/document_proxy/health/ready), verifying the certificate the API serves: TLS_CERT_FILE,
// or the pair generated into DATA_DIR/tls; its name is HEALTHCHECK_TLS_SERVERNAME (default localhost).
// `worker`: liveness on the Prometheus port (GET /health/live on METRICS_PORT).
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const https = require('node:https');

const role = process.argv[2];
const request =
  role === 'api'
    ? (cb) =>
        https.get(
          {
            host: '127.0.0.1',
            port: Number(process.env.HTTPS_PORT || 8443),
            path: '/api/v1/document_proxy/health/ready',
            ca: fs.readFileSync(
              process.env.TLS_CERT_FILE || path.join(process.env.DATA_DIR || './data', 'tls', 'cert.pem'),
            ),
            servername: process.env.HEALTHCHECK_TLS_SERVERNAME || 'localhost',
            timeout: 4000,
          },
          cb,
        )
    : (cb) =>
        http.get(
          {
            host: '127.0.0.1',
            port: Number(process.env.METRICS_PORT || 9464),
            path: '/health/live',
            timeout: 4000,
          },
          cb,
        );

const req = request((res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
