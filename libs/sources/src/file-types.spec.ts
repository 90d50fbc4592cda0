import { fileTypeOf } from './file-types';

describe('fileTypeOf', () => {
  it.each([
    ['a/b/Report.PDF', 'pdf'],
    ['x.docx', 'docx'],
    ['Q3 review.PPTX', 'pptx'],
    ['budget.xlsx', 'xlsx'],
    ['legacy.xls', null],
    ['macros.xlsm', null],
    ['notes.txt', 'txt'],
    ['README.md', 'md'],
    ['page.htm', 'html'],
    ['data.csv', 'csv'],
    ['archive.zip', null],
    ['.pdf', null],
    ['noext', null],
    ['dir.pdf/file', null],
  ])('%s -> %s', (name, type) => expect(fileTypeOf(name)).toBe(type));
});
