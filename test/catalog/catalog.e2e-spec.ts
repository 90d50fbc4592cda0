import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DocsetCatalog, DocumentCatalog } from '@docqa/catalog';
import { dataSourceOptions, runMigrations } from '@docqa/db';
import { createTestDatabase } from '../support/infra';

/**
 * libs/catalog against real Postgres: two accounts use the same docset names, so a query that
 * lost its account filter returns the other account's rows and fails here.
 */
describe('catalog: tenant scoping of docset and document reads', () => {
  let ds: DataSource;
  let docsets: DocsetCatalog;
  let documents: DocumentCatalog;
  let a: number;
  let b: number;
  const ids: Record<string, string> = {};

  async function account(name: string): Promise<number> {
    const [row] = await ds.query(`INSERT INTO accounts (name) VALUES ($1) RETURNING id`, [name]);
    return Number(row.id);
  }

  async function run(accountId: number, docSetName: string, credentialsEnc: string | null): Promise<string> {
    const id = randomUUID();
    await ds.query(
      `INSERT INTO index_runs (id, account_id, docset_name, workflow_id, source_type, status, credentials_enc)
       VALUES ($1, $2, $3, $4, 'SHAREPOINT', 'COMPLETED', $5)`,
      [id, accountId, docSetName, `wf-${id}`, credentialsEnc],
    );
    return id;
  }

  async function doc(
    key: string,
    accountId: number,
    docSetName: string,
    o: { status: string; served: boolean; itemId: string; runId?: string },
  ): Promise<void> {
    const id = randomUUID();
    ids[key] = id;
    await ds.query(
      `INSERT INTO documents (id, account_id, docset_name, file_name, source_type, source_id, source_metadata,
         status, file_type, page_count, served_generation, served_chunk_count, last_run_id, indexed_at, summary)
       VALUES ($1, $2, $3, $4, 'SHAREPOINT', $5, $6, $7, 'pdf', 3, $8, $9, $10, $11, $12)`,
      [
        id,
        accountId,
        docSetName,
        `${key}.pdf`,
        `drive/${key}.pdf`,
        JSON.stringify({ itemId: o.itemId }),
        o.status,
        o.served ? 1 : null,
        o.served ? 4 : null,
        o.runId ?? null,
        o.served ? new Date() : null,
        `summary of ${key}`,
      ],
    );
  }

  beforeAll(async () => {
    const url = await createTestDatabase('catalog');
    await runMigrations({ url, poolSize: 2 });
    ds = new DataSource(dataSourceOptions({ url, poolSize: 2 }));
    await ds.initialize();
    docsets = new DocsetCatalog(ds);
    documents = new DocumentCatalog(ds);
    a = await account('A');
    b = await account('B');
    const runA = await run(a, 'shared', 'cred-of-a');
    const runB = await run(b, 'shared', 'cred-of-b');
    await run(b, 'runs-only-b', null);
    await doc('a1', a, 'shared', { status: 'COMPLETE', served: true, itemId: 'i1', runId: runA });
    await doc('a2', a, 'shared', { status: 'ERROR', served: false, itemId: 'i2', runId: runA });
    await doc('b1', b, 'shared', { status: 'COMPLETE', served: true, itemId: 'i1', runId: runB });
    await doc('b2', b, 'shared', { status: 'PENDING', served: false, itemId: 'i3', runId: runB });
    await doc('b3', b, 'shared', { status: 'INDEXING', served: false, itemId: 'i4', runId: runB });
    await doc('b4', b, 'only-b', { status: 'COMPLETE', served: true, itemId: 'i5', runId: runB });
    await ds.query(`INSERT INTO index_run_removals (run_id, item_id) VALUES ($1, 'i1'), ($1, 'i2')`, [runA]);
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('existence and known docsets answer for the asking account only', async () => {
    expect(await docsets.existingDocsetNames(a, ['shared', 'only-b'])).toEqual(['shared']);
    expect(await docsets.existingDocsetNamesOfAccount(a)).toEqual(['shared']);
    expect(await docsets.existingDocsetNamesOfAccount(b)).toEqual(['only-b', 'shared']);
    expect(await docsets.knowsDocset(a, 'runs-only-b')).toBe(false);
    expect(await docsets.knowsDocset(b, 'runs-only-b')).toBe(true);
    expect((await docsets.knownDocsetNames(a, null)).sort()).toEqual(['shared']);
    expect((await docsets.knownDocsetNames(a, ['shared', 'only-b', 'runs-only-b'])).sort()).toEqual([
      'shared',
    ]);
    expect((await docsets.knownDocsetNames(b, null)).sort()).toEqual(['only-b', 'runs-only-b', 'shared']);
  });

  it('counts, listings and metadata of a shared docset name hold only the account own documents', async () => {
    expect(await docsets.documentCount(a, 'shared')).toBe(2);
    expect(await docsets.statusCounts(a, 'shared')).toEqual({
      PENDING: 0,
      INDEXING: 0,
      COMPLETE: 1,
      ERROR: 1,
      CANCELLED: 0,
    });
    const folder = { sourceType: 'SHAREPOINT' as const, sourceIdPrefix: 'drive/', metadata: {} };
    expect((await docsets.statusCounts(a, 'shared', folder)).PENDING).toBe(0);
    expect(await docsets.statusByDocset(a)).toEqual([
      {
        docSetName: 'shared',
        sourceTypes: ['SHAREPOINT'],
        exists: true,
        counts: { PENDING: 0, INDEXING: 0, COMPLETE: 1, ERROR: 1, CANCELLED: 0 },
      },
    ]);
    const [listed] = await docsets.docsets(a, null);
    expect(listed).toMatchObject({ docSetName: 'shared', documentCount: 2, chunkCount: 4, pageCount: 3 });
    expect(await docsets.docsets(a, ['only-b'])).toEqual([]);
    const meta = await docsets.metadata(a, 'shared');
    expect(meta).toMatchObject({ documentCount: 2, summaryCount: 1 });
    expect(meta?.summaries.map((s) => s.fileName)).toEqual(['a1.pdf']);
    expect(await docsets.metadata(a, 'only-b')).toBeNull();
  });

  it('document reads never reach another account document', async () => {
    expect((await documents.listByDocset(a, 'shared')).map((d) => d.fileName)).toEqual(['a1.pdf', 'a2.pdf']);
    expect((await documents.recent(a, null, 10)).map((d) => d.fileName).sort()).toEqual(['a1.pdf', 'a2.pdf']);
    expect(await documents.findById(a, ids.b1)).toBeNull();
    expect(await documents.findById(a, ids.a2)).toMatchObject({
      fileName: 'a2.pdf',
      status: 'ERROR',
      fileType: 'pdf',
    });
    expect(await documents.servedDocumentSource(a, ids.b1)).toBeNull();
    expect(await documents.servedDocumentSource(a, ids.a2)).toBeNull(); // not served
    expect(await documents.servedDocumentSource(a, ids.a1)).toMatchObject({
      fileName: 'a1.pdf',
      credentialsEnc: 'cred-of-a',
    });
  });

  it('incremental sync reads stay inside the account source scope', async () => {
    const [{ id: runA }] = await ds.query(`SELECT id FROM index_runs WHERE account_id = $1`, [a]);
    const scopeOf = (accountId: number) => ({
      accountId,
      docSetName: 'shared',
      sourceType: 'SHAREPOINT' as const,
      scope: 'drive/',
    });
    // Account A's run removed items i1 and i2: A's documents only, never B's document of item i1.
    const removed = (await documents.removedByChanges(runA, scopeOf(a), 10)).map((r) => r.id).sort();
    expect(removed).toEqual([ids.a1, ids.a2].sort());
    expect(await documents.removedByChanges(runA, scopeOf(b), 10)).toEqual([]);
    expect(await documents.countInScopeExceptItems(scopeOf(a), ['i1'])).toBe(1);
    expect(await documents.countInScopeExceptItems(scopeOf(a), ['i1', 'i2'])).toBe(0);
  });
});
