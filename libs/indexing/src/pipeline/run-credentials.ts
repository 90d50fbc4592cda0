import { Injectable } from '@nestjs/common';
import { SourceConnector, SourceConnectorRegistry, SourceCredentialsCipher } from '@docqa/sources';
import type { RunRow } from '../persistence/indexing.store';

/** The connector of a run and its credentials, decrypted from the run row (never from a payload). */
@Injectable()
export class RunCredentials {
  constructor(
    private readonly connectors: SourceConnectorRegistry,
    private readonly cipher: SourceCredentialsCipher,
  ) {}

  resolve(run: RunRow): { connector: SourceConnector; credentials: unknown } {
    const connector = this.connectors.get(run.sourceType);
    const raw = run.credentialsEnc ? this.cipher.decrypt(run.credentialsEnc, run.id) : undefined;
    return { connector, credentials: connector.parseCredentials(raw) };
  }
}
