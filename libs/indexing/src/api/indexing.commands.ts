import type { SourceType } from '@docqa/db';
import type { IndexableFileType } from '@docqa/sources';

/** POST /index, validated (the DTO checks shapes; the connector checks `credentials`). */
export interface IndexCommand {
  docSetName: string;
  sourceType: SourceType;
  /** Raw `credentials` of the request; the source's connector validates it. */
  credentials?: unknown;
  targetIndexTypes?: IndexableFileType[];
  forceReindex: boolean;
  /** OCR the PDF pages without a text layer (indexOptions.ocr, default true). */
  ocr?: boolean;
  async: boolean;
  accountName?: string;
  summaryModel?: string;
}

export interface CheckSourceCommand {
  docSetName: string;
  sourceType: SourceType;
  credentials?: unknown;
  targetIndexTypes?: IndexableFileType[];
}

export interface IndexAck {
  message: string;
  docSetName: string;
  jobId: string;
}

export type RunOutcome = 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** `async: false`: the acknowledgement plus how the run ended. */
export interface IndexSyncResult extends IndexAck {
  status: RunOutcome;
  counts: RunCounts;
  error?: string;
}

export interface RunCounts {
  listed: number;
  new: number;
  changed: number;
  unchanged: number;
  removed: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface SourceCheckResult {
  sourceFileCount: number;
  /** Supported files by type (`pdf`, `pptx`, `xlsx`, ...); types without files are absent. */
  fileTypeCounts: Record<string, number>;
  /** Supported files over INDEXING_MAX_FILE_BYTES (counted in sourceFileCount; they end ERROR). */
  tooLargeFileCount: number;
  existingDocumentCount: number;
  message: string;
}

export interface IndexingProgress {
  pendingCount: number;
  indexingCount: number;
  completedCount: number;
  errorCount: number;
  isIndexing: boolean;
}

export interface DocsetIndexingSummary extends IndexingProgress {
  docSetName: string;
  sourceTypes: string[];
  /** The docset exists: at least one of its documents is COMPLETE (DESIGN.md "Data"). */
  exists: boolean;
  documentCount: number;
  lastRun: {
    jobId: string;
    kind: 'sync' | 'retry';
    status: string;
    startedAt: string;
    finishedAt: string | null;
    error: string | null;
    counts: Partial<RunCounts>;
  } | null;
}

export interface IndexingSummary {
  docSets: DocsetIndexingSummary[];
  totals: {
    docSetCount: number;
    documentCount: number;
    pendingCount: number;
    indexingCount: number;
    completedCount: number;
    errorCount: number;
    indexingDocSetCount: number;
  };
}
