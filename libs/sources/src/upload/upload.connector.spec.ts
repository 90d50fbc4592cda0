import { DomainError } from '@docqa/common';
import { UploadConnector } from './upload.connector';
import type { UploadFiles } from './upload-files';

describe('UploadConnector.parseCredentials', () => {
  const connector = new UploadConnector({} as UploadFiles);
  const owner = { accountId: 7, docSetName: 'handbooks' };

  it('is the owner of the request or run, whatever the request sends', () => {
    expect(connector.parseCredentials(undefined, owner)).toEqual(owner);
    expect(connector.parseCredentials({}, owner)).toEqual(owner);
    // what a run stored for itself
    expect(connector.parseCredentials({ ...owner }, owner)).toEqual(owner);
  });

  it('refuses credentials that name another account or docset, or anything else', () => {
    for (const raw of [
      { accountId: 8 },
      { accountId: 7, docSetName: 'other' },
      { bucket: 'x' },
      'text',
      [owner],
    ])
      expect(() => connector.parseCredentials(raw, owner)).toThrow(DomainError);
  });
});
