import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '@docqa/common';
import { SourceError } from '@docqa/sources';
import {
  docsetWorkflowId,
  documentWorkflowId,
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURE,
  REJECTED_DOCUMENT_FAILURES,
  RUN_FAILURES,
} from '@docqa/workflow-contract';
import { DocumentRejectedError, RejectionKind } from '../extraction/document-rejected.error';
import { RunGoneError, SourceEmptyError } from '../pipeline/pipeline-errors';
import { toFailure } from './failures';

describe('indexing workflow contract', () => {
  it('the activities throw the failure types the workflows treat as permanent', () => {
    const rejected = (Object.keys(REJECTED_DOCUMENT_FAILURE) as RejectionKind[]).map(
      (kind) => new DocumentRejectedError(kind, 'x').name,
    );
    expect(rejected.sort()).toEqual([...REJECTED_DOCUMENT_FAILURES].sort());
    const permanentSource = (['ACCESS_DENIED', 'NOT_FOUND', 'UNAVAILABLE', 'TOO_LARGE'] as const)
      .map((kind) => new SourceError(kind, 'x'))
      .filter((err) => !err.retryable)
      .map((err) => err.name);
    expect(permanentSource.sort()).toEqual([...PERMANENT_SOURCE_FAILURES].sort());
    expect(RUN_FAILURES).toEqual(
      expect.arrayContaining([
        new SourceEmptyError('x').name,
        new RunGoneError('x').name,
        (
          toFailure(DomainError.validation('x', 'stale credentials'), {
            attempt: 1,
            unavailableRetryMs: 1000,
          }) as ApplicationFailure
        ).type,
      ]),
    );
  });

  it('builds business ids', () => {
    expect(docsetWorkflowId(42, 'hand books')).toBe('docset-index/42/hand books');
    expect(documentWorkflowId('0b3c')).toBe('document-index/0b3c');
  });
});
