const { brokenLinks, markdownFiles, slug } = require('./doc-links.js');
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('relative links of the docs', () => {
  it('every relative link of README.md and docs/ names a file (and heading) that exists', () => {
    const broken = markdownFiles().flatMap((f: string) =>
      brokenLinks(f).map((b: string) => `${path.relative(process.cwd(), f)}: ${b}`),
    );
    expect(broken).toEqual([]);
  });

  it('finds a missing file and a missing heading, and slugs headings as GitHub does', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-links-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'b.md'),
        '# The `npm test` run (2026)\n\n## Same\n\n## Same\n\n<a id="kept-anchor"></a>\n',
      );
      fs.writeFileSync(
        path.join(dir, 'a.md'),
        '[ok](b.md#the-npm-test-run-2026) [dup](b.md#same-1) [id](b.md#kept-anchor) [gone](c.md) ' +
          '[bad](b.md#nope) ' +
          '[web](https://example.com/x.md) `[code](nope.md)`\n',
      );
      expect(brokenLinks(path.join(dir, 'a.md'))).toEqual([
        'c.md (no such file)',
        'b.md#nope (no such heading)',
      ]);
      expect(slug("Elasticsearch's kNN leg, exact (issue 14)")).toBe('elasticsearchs-knn-leg-exact-issue-14');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
