import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DOCUMENT_FAILED,
  INDEX_DOCSET_WORKFLOW,
  INDEX_DOCUMENT_WORKFLOW,
  PERMANENT_SOURCE_FAILURES,
  REJECTED_DOCUMENT_FAILURES,
  renderSearchAttributesFile,
  RUN_FAILURES,
  SEARCH_ATTRIBUTE_KEYS,
  SEARCH_ATTRIBUTES,
} from '.';

const ROOT = path.resolve(__dirname, '../../..');

describe('workflow contract', () => {
  // Running workflows and the Temporal namespace hold these names: renaming one breaks replay and
  // the operators' saved searches, so they are pinned here.
  it('keeps the names running workflows and the namespace know', () => {
    expect([INDEX_DOCSET_WORKFLOW, INDEX_DOCUMENT_WORKFLOW]).toEqual([
      'indexDocsetWorkflow',
      'indexDocumentWorkflow',
    ]);
    expect(SEARCH_ATTRIBUTES).toEqual({
      DocqaAccountId: 'Keyword',
      DocqaDocSetName: 'Keyword',
      DocqaSourceType: 'Keyword',
    });
    for (const key of Object.values(SEARCH_ATTRIBUTE_KEYS)) expect(key.type).toBe('KEYWORD');
    expect(DOCUMENT_FAILED).toBe('DocumentIndexingFailed');
    expect(REJECTED_DOCUMENT_FAILURES).toEqual([
      'UnsupportedDocument',
      'EncryptedDocument',
      'CorruptDocument',
      'EmptyDocument',
    ]);
    expect(PERMANENT_SOURCE_FAILURES).toEqual(['SourceAccessDenied', 'SourceNotFound', 'DocumentTooLarge']);
    expect(RUN_FAILURES).toEqual(['SourceEmpty', 'RunGone', 'InvalidCredentials']);
  });

  it('the generated search-attributes.txt is up to date (npm run contract:generate)', () => {
    const file = fs.readFileSync(path.join(ROOT, 'docker/temporal/search-attributes.txt'), 'utf8');
    expect(file).toBe(renderSearchAttributesFile());
  });

  it('test/infra registers the contract attributes from the generated file', () => {
    const infra = require(path.join(ROOT, 'test/infra/temporal.js'));
    expect(infra.SEARCH_ATTRIBUTES).toEqual(SEARCH_ATTRIBUTES);
  });
});
