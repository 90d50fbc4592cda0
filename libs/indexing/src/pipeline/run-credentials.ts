import { Injectable } from '@nestjs/common';
import { DomainError } from '@docqa/common';
import { SourceConnector, SourceConnectorRegistry, SourceCredentialsCipher } from '@docqa/sources';
import type { RunRow } from '../persistence/run.store';

/** The connector of a run and its credentials, decrypted from the run row (never from a payload). */
@Injectable()
export class RunCredentials {
  constructor(
    private readonly connectors: SourceConnectorRegistry,
    private readonly cipher: SourceCredentialsCipher,
  ) {}

  resolve(run: RunRow): { connector: SourceConnector; credentials: unknown } {
    const connector = this.connectors.get(run.sourceType);
    let raw: unknown;
    try {
      raw = run.credentialsEnc ? this.cipher.decrypt(run.credentialsEnc, run.id) : undefined;
    } catch {
      // Permanent (InvalidCredentials): for example APP_SECRET changed since the run was accepted.
      throw DomainError.validation(
        'credentials',
        'The stored source credentials of this run cannot be decrypted',
      );
    }
    return {
      connector,
      credentials: connector.parseCredentials(raw, { accountId: run.accountId, docSetName: run.docSetName }),
    };
  }
}
