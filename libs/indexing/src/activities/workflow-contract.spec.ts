import { SEARCH_ATTRIBUTES } from '@docqa/common';
import { REJECTED_DOCUMENT_ERRORS } from '../extraction/document-rejected.error';
import { RunGoneError, SourceEmptyError } from '../pipeline/pipeline-errors';
import { PERMANENT_SOURCE_ERRORS } from '@docqa/sources';
import {
  docsetWorkflowId,
  documentWorkflowId,
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURES,
  RUN_FAILURES,
  SEARCH_ATTRIBUTE_KEYS,
} from '@docqa/workflows/indexing.contract';

describe('indexing workflow contract', () => {
  it('names the failure types the activities throw', () => {
    expect([...REJECTED_DOCUMENT_FAILURES].sort()).toEqual([...REJECTED_DOCUMENT_ERRORS].sort());
    expect([...PERMANENT_SOURCE_FAILURES].sort()).toEqual([...PERMANENT_SOURCE_ERRORS].sort());
    expect(RUN_FAILURES).toEqual(
      expect.arrayContaining([
        new SourceEmptyError('x').name,
        new RunGoneError('x').name,
        'InvalidCredentials',
      ]),
    );
  });

  it('uses the search attributes registered on the namespace', () => {
    for (const key of Object.values(SEARCH_ATTRIBUTE_KEYS)) {
      expect(SEARCH_ATTRIBUTES).toHaveProperty(key.name, 'Keyword');
      expect(key.type).toBe('KEYWORD');
    }
  });

  it('builds business ids', () => {
    expect(docsetWorkflowId(42, 'hand books')).toBe('docset-index/42/hand books');
    expect(documentWorkflowId('0b3c')).toBe('document-index/0b3c');
  });
});
