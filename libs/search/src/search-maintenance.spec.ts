import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ElasticsearchSearchIndex } from './elasticsearch.adapter';
import { EmbeddedSearchIndex } from './embedded.adapter';
import { hasMaintenance } from './search-maintenance';

describe('hasMaintenance (engine-only capabilities beside the SearchIndex port)', () => {
  const space = { modelName: 'unit', dimensions: 4 };

  it('is true for the embedded engine, whose settle and writesBlocked callers may use', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docqa-maintenance-'));
    const index = new EmbeddedSearchIndex({ dir, space });
    try {
      expect(hasMaintenance(index)).toBe(true);
      expect(index.writesBlocked()).toBeUndefined();
    } finally {
      await index.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is false for Elasticsearch, which has neither (nothing connects until a call)', async () => {
    const index = new ElasticsearchSearchIndex({ url: 'http://127.0.0.1:9', prefix: 'unit', space });
    try {
      expect(hasMaintenance(index)).toBe(false);
    } finally {
      await index.close();
    }
  });
});
