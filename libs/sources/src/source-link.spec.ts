import { sourceWebLink } from './source-link';

describe('sourceWebLink', () => {
  const webUrl = 'https://contoso.sharepoint.com/sites/docs/Shared%20Documents/q1.pdf';
  it('points PDFs at the cited page and other files at the file', () => {
    expect(sourceWebLink({ webUrl }, 'q1.pdf', '3')).toBe(`${webUrl}#page=3`);
    expect(sourceWebLink({ webUrl }, 'q1.PDF', 7)).toBe(`${webUrl}#page=7`);
    expect(sourceWebLink({ webUrl }, 'notes.txt', '2')).toBe(webUrl);
    expect(sourceWebLink({ webUrl }, 'q1.pdf', null)).toBe(webUrl);
  });
  it('is null without an http(s) web URL', () => {
    expect(sourceWebLink({}, 'a.pdf', 1)).toBeNull();
    expect(sourceWebLink({ webUrl: 'javascript:alert(1)' }, 'a.pdf', 1)).toBeNull();
    expect(sourceWebLink(null, 'a.pdf', 1)).toBeNull();
  });
});
