import { DomainError } from '@docqa/common';
import { docsetStoreKey, uploadFileName, uploadFileNameOf, uploadSourceId } from './upload-names';

describe('upload file names', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd.txt', 'passwd.txt'],
    ['C:\\Users\\ada\\notes.md', 'notes.md'],
    ['dir/sub/..', ''],
    ['  spaced name.pdf  ', 'spaced name.pdf'],
    ['...hidden.txt', 'hidden.txt'],
    ['new\nline\u0000.txt', 'newline.txt'],
    ['invoice\u202efdp.exe.txt', 'invoicefdp.exe.txt'],
    ['Cafe\u0301.pdf', 'Café.pdf'],
  ])('%j is stored as %j', (raw, stored) => {
    if (!stored) expect(() => uploadFileName(raw)).toThrow(DomainError);
    else expect(uploadFileName(raw)).toBe(stored);
  });

  it('refuses empty names and names over 240 UTF-8 bytes', () => {
    expect(() => uploadFileName('')).toThrow(/file name/);
    expect(() => uploadFileName('/')).toThrow(/file name/);
    expect(uploadFileName(`${'é'.repeat(118)}.pdf`)).toHaveLength(122); // 236 + 4 bytes
    expect(() => uploadFileName(`${'é'.repeat(119)}.pdf`)).toThrow(/240 bytes/);
  });

  it('round-trips source ids and refuses ids that are not stored names', () => {
    expect(uploadFileNameOf(uploadSourceId('a b.pdf'))).toBe('a b.pdf');
    expect(uploadFileNameOf('upload://../x.pdf')).toBeNull();
    expect(uploadFileNameOf('upload://dir/x.pdf')).toBeNull();
    expect(uploadFileNameOf('s3://bucket/x.pdf')).toBeNull();
  });

  it('keys docsets by a hash that fits a path segment and differs per name', () => {
    expect(docsetStoreKey('handbooks')).toMatch(/^[0-9a-f]{64}$/);
    expect(docsetStoreKey('../x')).not.toBe(docsetStoreKey('x'));
  });
});
