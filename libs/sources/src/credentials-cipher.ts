import { Inject, Injectable } from '@nestjs/common';
import { CORE_CONFIG, CoreConfig, resolveAppSecret, SecretBox } from '@docqa/common';

/**
 * Encrypts request credentials for storage (index_runs.credentials_enc) with AES-GCM under a key
 * derived from APP_SECRET. The ciphertext is bound to its run id (AAD), so copying it to another
 * row does not decrypt. Workflow payloads carry the run id, never the credentials.
 */
@Injectable()
export class SourceCredentialsCipher {
  private readonly box: SecretBox;

  constructor(@Inject(CORE_CONFIG) core: CoreConfig) {
    this.box = new SecretBox(core.appSecret ?? resolveAppSecret(core), 'source-credentials');
  }

  encrypt(credentials: unknown, runId: string): string {
    return this.box.encrypt(JSON.stringify(credentials), `index-run:${runId}`);
  }

  decrypt(ciphertext: string, runId: string): unknown {
    return JSON.parse(this.box.decrypt(ciphertext, `index-run:${runId}`)) as unknown;
  }
}
