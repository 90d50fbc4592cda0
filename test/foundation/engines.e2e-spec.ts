import { Client as EsClient } from '@elastic/elasticsearch';
import type { Client } from '@temporalio/client';
import { TEMPORAL_CLIENT } from '@docqa/common';
import { startTestApp, TestApp } from '../support/app';
import { infra, uniqueName } from '../support/infra';

describe('real engines', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ worker: true });
  });
  afterAll(async () => app?.close());

  it('runs a workflow bundled from workflows/ on the real Temporal dev server', async () => {
    const client = app.api.app.get<Client>(TEMPORAL_CLIENT);
    const result = await client.workflow.execute('diagnosticsWorkflow', {
      taskQueue: app.cfg.temporal.taskQueue,
      workflowId: uniqueName('diagnostics'),
      args: ['hello'],
    });
    expect(result).toBe('echo: hello');
  });

  it('creates an index and finds a document in the real Elasticsearch', async () => {
    const es = new EsClient({ node: infra().elasticsearchUrl });
    const index = uniqueName('infra-probe');
    try {
      const info = await es.info();
      expect(info.version.number).toMatch(/^8\./);
      await es.indices.create({
        index,
        mappings: {
          properties: { text: { type: 'text', analyzer: 'english' }, tenant: { type: 'keyword' } },
        },
      });
      await es.index({
        index,
        id: '1',
        document: { text: 'Running indexes quickly', tenant: 'a' },
        refresh: true,
      });
      const res = await es.search({ index, query: { match: { text: 'run index' } } });
      expect(res.hits.hits.map((h) => h._id)).toEqual(['1']);
    } finally {
      await es.indices.delete({ index }, { ignore: [404] });
      await es.close();
    }
  });
});
