import { renderAnswerHtml } from './render-html';

describe('renderAnswerHtml', () => {
  it('renders Markdown and turns [n] markers into links to the citations', () => {
    const html = renderAnswerHtml(
      '**Refunds** take 14 days [1].\n\n- one [2]\n- two',
      new Map([[1, 'https://api.example/api/v1/chatbot/files/t1#page=3']]),
    );
    expect(html).toContain('<strong>Refunds</strong>');
    expect(html).toContain(
      '<sup><a href="https://api.example/api/v1/chatbot/files/t1#page=3" target="_blank" rel="noopener noreferrer nofollow">[1]</a></sup>',
    );
    // A marker without a link stays text.
    expect(html).toContain('one [2]');
    expect(html).toContain('<ul>');
  });

  it.each([
    ['script tag', 'Hello <script>alert(1)</script> world'],
    ['event handler', 'x <img src=x onerror="alert(1)"> y <b onclick="alert(2)">b</b>'],
    ['javascript: link', '[click](javascript:alert(1)) and <a href="javascript:alert(2)">a</a>'],
    ['data: link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['svg', '<svg onload="alert(1)"><script>alert(2)</script></svg>'],
    ['iframe and style', '<iframe src="https://evil.example"></iframe><style>*{}</style><p style="x">p</p>'],
    ['entity-encoded scheme', '<a href="jav&#x61;script:alert(1)">a</a>'],
    ['autolink', '<javascript:alert(1)>'],
  ])('keeps %s inert', (_name, text) => {
    const html = renderAnswerHtml(text);
    expect(html).not.toMatch(/<script|<iframe|<svg|<style|<img/i);
    expect(html).not.toMatch(/\son\w+\s*=/i);
    // Text may still read "javascript:", but no attribute carries a script or data URL.
    expect(html).not.toMatch(/(href|src)\s*=\s*["']?\s*(javascript|data|vbscript):/i);
    expect(html).not.toMatch(/\ssrc=/i);
    expect(html).not.toMatch(/style=/i);
  });
});
