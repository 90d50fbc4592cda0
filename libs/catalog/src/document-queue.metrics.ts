import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { docqaMetrics, QUEUED_DOCUMENT_STATUSES, QueuedDocumentStatus } from '@docqa/common';

/**
 * Feeds `docqa_documents_queue_depth{status}`: documents PENDING or INDEXING across all accounts,
 * counted when Prometheus scrapes (an aggregate for operators; no tenant data leaves the query).
 */
@Injectable()
export class DocumentQueueMetrics implements OnModuleInit, OnApplicationShutdown {
  private unregister?: () => void;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async count(): Promise<Partial<Record<QueuedDocumentStatus, number>>> {
    const rows: Array<{ status: QueuedDocumentStatus; n: number }> = await this.db.query(
      'SELECT status, count(*)::int AS n FROM documents WHERE status = ANY($1) GROUP BY status',
      [QUEUED_DOCUMENT_STATUSES],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  onModuleInit(): void {
    this.unregister = docqaMetrics.setQueueDepthSource(() => this.count());
  }

  onApplicationShutdown(): void {
    this.unregister?.();
  }
}
