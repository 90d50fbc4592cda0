import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { embeddingSpaceKey } from '@docqa/common';
import { Embedder, EMBEDDER } from '@docqa/embeddings';
import { SEARCH_INDEX, SearchIndex } from '@docqa/search';
import { EmbeddingSpaceStore } from '../persistence/embedding-space.store';

/**
 * At start-up: says loudly when COMPLETE documents are not in the current index version (they
 * were embedded by another model), with the command that fixes it. Documents indexed before
 * spaces were recorded (embedding_space NULL) are claimed for the current space when its index
 * already holds chunks (same embedder as before the upgrade), else left to re-embed.
 */
@Injectable()
export class EmbeddingSpaceCheck implements OnApplicationBootstrap {
  private readonly log = new Logger('EmbeddingSpaceCheck');
  /** What the last check found (documents/docsets outside the current space). */
  outside?: { documents: number; docsets: number };

  constructor(
    private readonly spaces: EmbeddingSpaceStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.check();
    } catch (err) {
      // a check, never a reason not to start (the search engine may be down for now)
      this.log.warn(`Embedding space check skipped: ${(err as Error).message}`);
    }
  }

  async check(): Promise<{ documents: number; docsets: number }> {
    const space = embeddingSpaceKey(this.embedder);
    if ((await this.spaces.countUnrecordedSpace()) > 0) {
      const stats = await this.search.stats();
      if (stats.chunks > 0) {
        const n = await this.spaces.recordUnrecordedSpace(space);
        this.log.log(`Recorded embedding space ${space} for ${n} documents indexed before it was tracked`);
      }
    }
    this.outside = await this.spaces.countOutsideSpace(space);
    if (this.outside.documents > 0) {
      this.log.warn(
        `${this.outside.documents} documents in ${this.outside.docsets} docsets were embedded by another ` +
          `model and are not in the current search index (${space}); questions will not find them ` +
          'until they are re-embedded: run `npm run cli -- reembed` (docs/models.md).',
      );
    }
    return this.outside;
  }
}
