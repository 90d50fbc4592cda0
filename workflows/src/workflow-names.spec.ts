import { INDEX_DOCSET_WORKFLOW, INDEX_DOCUMENT_WORKFLOW } from '@docqa/workflow-contract';
import * as workflows from '.';

describe('workflow exports', () => {
  it('exports the workflow functions under the names the contract starts them by', () => {
    const exported = workflows as unknown as Record<string, unknown>;
    expect(typeof exported[INDEX_DOCSET_WORKFLOW]).toBe('function');
    expect(typeof exported[INDEX_DOCUMENT_WORKFLOW]).toBe('function');
  });
});
