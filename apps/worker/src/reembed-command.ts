import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@docqa/common';
import { DbModule } from '@docqa/db';
import {
  DocumentLifecycleStore,
  DocumentPreparer,
  EmbeddingSpaceStore,
  ReembedOptions,
  ReembedReport,
  ReembedService,
  RunStore,
} from '@docqa/indexing';
import { AnswersModule } from '@docqa/answers';
import { EmbeddingsModule } from '@docqa/embeddings';
import { SearchModule } from '@docqa/search';

/**
 * `npm run cli -- reembed`: re-embeds COMPLETE documents into the current index version with the
 * configured embedder (the same configuration as the worker's). Only the database, the search
 * engine and the embedder are opened; Temporal is not needed.
 */
export async function runReembed(cfg: AppConfig, o: ReembedOptions): Promise<ReembedReport> {
  @Module({
    imports: [ConfigModule.forRoot(cfg), DbModule, EmbeddingsModule, AnswersModule, SearchModule],
    providers: [DocumentLifecycleStore, DocumentPreparer, EmbeddingSpaceStore, RunStore, ReembedService],
  })
  class ReembedCommandModule {}
  const app = await NestFactory.createApplicationContext(ReembedCommandModule, {
    logger: ['error', 'warn'],
  });
  try {
    return await app.get(ReembedService).reembed(o);
  } finally {
    await app.close();
  }
}
