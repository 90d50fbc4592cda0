import type { Client } from '@elastic/elasticsearch';
import { Logger } from '@nestjs/common';
import { abortable, type EmbeddingSpace } from '@docqa/common';
import { alreadyExists, dropReason, normaliseError, notFound } from './elasticsearch-client';
import { ChunkDoc, chunkIndexTemplate } from './elasticsearch-query';
import { ChunkFailure, PartialIndexingError } from './search.errors';

/** Lowercase, no leading `-_+`, none of `\/*?"<>| ,#:`; ES's own rules for index names. */
export function assertIndexPrefix(prefix: string): void {
  if (!/^[a-z0-9][a-z0-9._-]{0,150}$/.test(prefix)) {
    throw new Error(`SEARCH_INDEX_PREFIX "${prefix}" is not a valid Elasticsearch index name prefix`);
  }
}

export interface IndexSetupOptions {
  client: Client;
  /** The alias reads and writes go through. */
  alias: string;
  /** The versioned index the alias is to point at. */
  indexName: string;
  /** The health write probe's index. */
  probeIndex: string;
  layoutVersion: number;
  space: EmbeddingSpace;
}

/**
 * The chunk index's lifecycle: a composable index template and the versioned index it makes, the
 * alias moved to it atomically, chunks of an older index with the same embedding space copied over
 * (then that index dropped), and the small index of the health write probe. Once per process.
 */
export class ElasticsearchIndexSetup {
  private readonly log = new Logger('ElasticsearchSearchIndex');
  private ready?: Promise<void>;
  /** The first set-up has finished (health's write probe has something to write to). */
  done = false;

  constructor(private readonly o: IndexSetupOptions) {}

  /**
   * Creates template, index and alias once per process; migrates from an older index if needed.
   * A caller's signal only stops its own wait: the set-up is shared and runs on.
   */
  ensure(signal?: AbortSignal): Promise<void> {
    this.ready ??= this.setUp().then(
      () => {
        this.done = true;
      },
      (err: unknown) => {
        this.ready = undefined;
        throw normaliseError(err);
      },
    );
    return abortable(this.ready, signal);
  }

  private async setUp(): Promise<void> {
    const { client, indexName, alias, layoutVersion } = this.o;
    await this.createProbeIndex();
    const tpl = chunkIndexTemplate(this.o.space, layoutVersion);
    await client.indices.putIndexTemplate({
      name: indexName,
      index_patterns: [indexName],
      priority: 200,
      template: tpl,
      _meta: { description: 'DocQA chunk index', layoutVersion },
    });
    if (!(await client.indices.exists({ index: indexName }))) {
      try {
        await client.indices.create({ index: indexName });
      } catch (err) {
        // another process created it first
        if (!alreadyExists(err)) throw err;
      }
    }
    const current = await this.aliasTargets();
    if (current.length === 1 && current[0] === indexName) return;
    if (current.length === 0) {
      if (await client.indices.exists({ index: alias })) {
        throw new Error(`SEARCH_INDEX_PREFIX "${alias}" names an existing index, not an alias`);
      }
      await client.indices.updateAliases({
        actions: [{ add: { index: indexName, alias, is_write_index: true } }],
      });
      return;
    }
    await this.migrateFrom(current);
  }

  /** The small index the write probe of `health` writes to (one document, overwritten). */
  private async createProbeIndex(): Promise<void> {
    try {
      await this.o.client.indices.create({
        index: this.o.probeIndex,
        settings: { number_of_shards: 1, auto_expand_replicas: '0-1' },
        mappings: { dynamic: false, properties: { at: { type: 'date' } } },
      });
    } catch (err) {
      if (!alreadyExists(err)) throw err;
    }
  }

  private async aliasTargets(): Promise<string[]> {
    try {
      const r = await this.o.client.indices.getAlias({ name: this.o.alias });
      return Object.keys(r);
    } catch (err) {
      if (notFound(err)) return [];
      throw err;
    }
  }

  /**
   * Upgrade path: the alias points at an older index. Same embedding space: copy every chunk into
   * the new index (scroll + bulk, so it needs no reindex module), swap the alias atomically, delete
   * the old index. Different embedder: vectors cannot be reused, so the alias moves to the new,
   * empty index and the old one is kept until documents are re-indexed (forceReindex).
   */
  private async migrateFrom(oldIndices: string[]): Promise<void> {
    const { client, indexName, alias, space } = this.o;
    const sameSpace: string[] = [];
    for (const old of oldIndices) {
      const m = await client.indices.getMapping({ index: old });
      const meta = m[old]?.mappings?._meta ?? {};
      if (meta.embeddingModel === space.modelName && meta.dimensions === space.dimensions) {
        sameSpace.push(old);
      }
    }
    for (const old of sameSpace) {
      this.log.log(`copying chunks from ${old} to ${indexName}`);
      const failures: ChunkFailure[] = [];
      // Ids are copied as they are: they carry the chunk's generation, which no field stores.
      await client.helpers.bulk<{ id: string; doc: ChunkDoc }>({
        datasource: this.scrollHits(old),
        onDocument: (h) => [{ index: { _index: indexName, _id: h.id } }, h.doc],
        onDrop: (d) => failures.push({ id: d.document.id, reason: dropReason(d.error) }),
        refreshOnCompletion: indexName,
      });
      if (failures.length) throw new PartialIndexingError(0, failures);
    }
    await client.indices.updateAliases({
      actions: [
        ...oldIndices.map((index) => ({ remove: { index, alias } })),
        { add: { index: indexName, alias, is_write_index: true } },
      ],
    });
    for (const old of sameSpace) await client.indices.delete({ index: old });
    const kept = oldIndices.filter((i) => !sameSpace.includes(i));
    if (kept.length) {
      this.log.warn(
        `embedder changed: alias ${alias} now points at the empty ${indexName}; ` +
          `kept ${kept.join(', ')} for rollback. Re-index documents (forceReindex), then delete the old index.`,
      );
    }
  }

  private async *scrollHits(index: string): AsyncGenerator<{ id: string; doc: ChunkDoc }> {
    for await (const page of this.o.client.helpers.scrollSearch<ChunkDoc>({
      index,
      size: 1000,
      query: { match_all: {} },
    })) {
      for (const h of page.body.hits.hits) yield { id: h._id as string, doc: h._source as ChunkDoc };
    }
  }
}
