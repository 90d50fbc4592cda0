import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DocumentCatalog } from '@docqa/catalog';
import type { SourceType } from '@docqa/db';
import { IncrementalSourceConnector } from '../incremental-source';
import { SourceObject } from '../source.port';

/** The run facts incremental listing needs (a subset of the indexing run row). */
export interface SyncRun {
  id: string;
  accountId: number;
  docSetName: string;
  sourceType: SourceType;
  scope: string;
  forceReindex: boolean;
}

interface SyncToken {
  /** full listing or change feed */
  m: 'f' | 'c';
  /** the connector's own page token */
  t: string | null;
  /** change mode: the stored cursor this run reads from */
  c?: string;
}

/** Change-feed pages read at most by the API probe before it gives up explaining an empty source. */
const PROBE_PAGES = 50;

/**
 * Incremental re-sync of SharePoint (Graph delta) and Google Drive (changes) sources. The cursor
 * lives in source_sync_state per account, docset, source type and scope. A run reads the feed from
 * it (upserts are staged like a listing, deletions in index_run_removals); without one, or with
 * `forceReindex`, or when the feed says the cursor expired, the run lists everything after taking
 * a fresh cursor. The cursor is stored only when the run completes (index_run_sync holds it until
 * then), so a failed run is simply read again by the next one.
 */
@Injectable()
export class SourceSync {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly documents: DocumentCatalog,
  ) {}

  async storedCursor(
    accountId: number,
    docSetName: string,
    sourceType: SourceType,
    scope: string,
  ): Promise<string | null> {
    const rows: Array<{ cursor: string }> = await this.ds.query(
      `SELECT cursor FROM source_sync_state
        WHERE account_id = $1 AND docset_name = $2 AND source_type = $3 AND scope = $4`,
      [accountId, docSetName, sourceType, scope],
    );
    return rows[0]?.cursor ?? null;
  }

  /** One page of an incremental-capable source for a sync run (see the class comment). */
  async listPage<C>(
    run: SyncRun,
    connector: IncrementalSourceConnector<C>,
    credentials: C,
    pageToken: string | null,
    pageSize: number,
  ): Promise<{ objects: SourceObject[]; nextPageToken: string | null }> {
    let token: SyncToken;
    if (pageToken === null) {
      const cursor = run.forceReindex
        ? null
        : await this.storedCursor(run.accountId, run.docSetName, run.sourceType, run.scope);
      token = cursor ? { m: 'c', t: null, c: cursor } : await this.startFull(run, connector, credentials);
      if (cursor) await this.setRunSync(run.id, 'changes', null);
    } else token = JSON.parse(Buffer.from(pageToken, 'base64url').toString('utf8')) as SyncToken;

    const wrap = (t: SyncToken | null) => (t ? Buffer.from(JSON.stringify(t)).toString('base64url') : null);
    if (token.m === 'f') {
      const page = await connector.listPage(credentials, token.t, pageSize);
      return {
        objects: page.objects,
        nextPageToken: page.nextPageToken ? wrap({ m: 'f', t: page.nextPageToken }) : null,
      };
    }
    const page = await connector.changesPage(credentials, token.c as string, token.t);
    if (page.resyncRequired) {
      // The stored cursor expired: list everything instead (removals were not staged yet on page 1;
      // any staged by earlier pages are dropped with the run's mode switching to full).
      await this.ds.query(`DELETE FROM index_run_removals WHERE run_id = $1`, [run.id]);
      return { objects: [], nextPageToken: wrap(await this.startFull(run, connector, credentials)) };
    }
    if (page.removedItemIds.length)
      await this.ds.query(
        `INSERT INTO index_run_removals (run_id, item_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
        [run.id, page.removedItemIds],
      );
    if (!page.nextPageToken) await this.setRunSync(run.id, 'changes', page.nextCursor);
    return {
      objects: page.upserted,
      nextPageToken: page.nextPageToken ? wrap({ m: 'c', t: page.nextPageToken, c: token.c }) : null,
    };
  }

  /** Whether the run reads a change feed (then an empty page set means "nothing changed"). */
  async isChangesRun(runId: string): Promise<boolean> {
    const rows: Array<{ mode: string }> = await this.ds.query(
      `SELECT mode FROM index_run_sync WHERE run_id = $1`,
      [runId],
    );
    return rows[0]?.mode === 'changes';
  }

  /**
   * Documents a change-feed run removes: those whose item the feed reported deleted (or moved out
   * of scope), and the old row of a renamed or moved item (same item id, another sourceId).
   */
  async goneByChanges(run: SyncRun, limit: number): Promise<Array<{ id: string }>> {
    return this.documents.removedByChanges(run.id, run, limit);
  }

  /** On a completed run: its cursor becomes the stored one. */
  async commit(run: SyncRun): Promise<void> {
    await this.ds.query(
      `INSERT INTO source_sync_state (account_id, docset_name, source_type, scope, cursor)
       SELECT $2, $3, $4, $5, s.next_cursor FROM index_run_sync s WHERE s.run_id = $1 AND s.next_cursor IS NOT NULL
       ON CONFLICT (account_id, docset_name, source_type, scope)
         DO UPDATE SET cursor = excluded.cursor, updated_at = now()`,
      [run.id, run.accountId, run.docSetName, run.sourceType, run.scope],
    );
  }

  /**
   * The API probe found 0 files while the docset has documents from this scope. That is a real
   * emptying (not a wrong folder or lost permission) only when the change feed since the stored
   * cursor reports every one of those documents' items deleted or moved away.
   */
  async emptinessExplained<C>(
    accountId: number,
    docSetName: string,
    connector: IncrementalSourceConnector<C>,
    credentials: C,
  ): Promise<boolean> {
    const scope = connector.scopeOf(credentials);
    const cursor = await this.storedCursor(accountId, docSetName, connector.sourceType, scope);
    if (!cursor) return false;
    const removed = new Set<string>();
    let token: string | null = null;
    for (let i = 0; i < PROBE_PAGES; i++) {
      const page = await connector.changesPage(credentials, cursor, token);
      if (page.resyncRequired) return false;
      for (const id of page.removedItemIds) removed.add(id);
      token = page.nextPageToken;
      if (!token) break;
    }
    if (token) return false;
    const left = await this.documents.countInScopeExceptItems(
      { accountId, docSetName, sourceType: connector.sourceType, scope },
      [...removed],
    );
    return left === 0;
  }

  private async startFull<C>(
    run: SyncRun,
    connector: IncrementalSourceConnector<C>,
    credentials: C,
  ): Promise<SyncToken> {
    // Taken before listing, so what changes during the listing is read again next time.
    await this.setRunSync(run.id, 'full', await connector.latestCursor(credentials));
    return { m: 'f', t: null };
  }

  private async setRunSync(runId: string, mode: 'full' | 'changes', cursor: string | null): Promise<void> {
    await this.ds.query(
      `INSERT INTO index_run_sync (run_id, mode, next_cursor) VALUES ($1, $2, $3)
       ON CONFLICT (run_id) DO UPDATE SET mode = excluded.mode, next_cursor = excluded.next_cursor, updated_at = now()`,
      [runId, mode, cursor],
    );
  }
}
