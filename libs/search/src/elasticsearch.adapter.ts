import { Client } from '@elastic/elasticsearch';
import { EngineHealth, SearchIndex } from './search.port';

export class ElasticsearchSearchIndex implements SearchIndex {
  readonly engine = 'elasticsearch' as const;
  readonly client: Client;

  constructor(url: string) {
    this.client = new Client({ node: url, requestTimeout: 30000, maxRetries: 2 });
  }

  async health(): Promise<EngineHealth> {
    try {
      const h = await this.client.cluster.health({ timeout: '2s' }, { requestTimeout: 3000, maxRetries: 0 });
      return { engine: this.engine, up: h.status !== 'red', detail: `cluster ${h.status}` };
    } catch {
      return { engine: this.engine, up: false, detail: 'unreachable' };
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
