import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AppConfig } from '@docqa/common';

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** Certificate file to hand to `curl --cacert` (the self-signed certificate itself in embedded mode). */
  caFile: string;
  generated: boolean;
}

/**
 * TLS pair from TLS_CERT_FILE/TLS_KEY_FILE, or a self-signed pair generated once into
 * DATA_DIR/tls and reused on later starts.
 */
export async function loadTls(cfg: AppConfig): Promise<TlsMaterial> {
  if (cfg.server.tlsCertFile && cfg.server.tlsKeyFile) {
    return {
      cert: fs.readFileSync(cfg.server.tlsCertFile),
      key: fs.readFileSync(cfg.server.tlsKeyFile),
      caFile: cfg.server.tlsCertFile,
      generated: false,
    };
  }
  const dir = path.join(cfg.core.dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  let generated = false;
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    fs.mkdirSync(dir, { recursive: true });
    const pems = await selfSignedLocalhost(SELF_SIGNED_DAYS);
    fs.writeFileSync(keyFile, pems.key, { mode: 0o600 });
    fs.writeFileSync(certFile, pems.cert);
    generated = true;
  }
  return { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile), caFile: certFile, generated };
}

/** Validity of the certificate generated into DATA_DIR/tls, in days. */
const SELF_SIGNED_DAYS = 825;

/** A self-signed certificate (its own CA) for `localhost`, 127.0.0.1 and ::1, valid for `days`. */
export async function selfSignedLocalhost(days: number): Promise<{ cert: string; key: string }> {
  const selfsigned = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + days * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
