import { Parser } from 'htmlparser2';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'title',
  'tr',
  'ul',
]);

/** Visible text of an HTML document (title first), with block elements on their own lines. */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let title = '';
  let inTitle = false;
  let skipDepth = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        else if (SKIP.has(name)) skipDepth++;
        else if (BLOCK.has(name)) out.push('\n');
        if (name === 'td' || name === 'th') out.push(' ');
      },
      ontext(text) {
        if (inTitle) title += text;
        else if (skipDepth === 0) out.push(text);
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        else if (SKIP.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (BLOCK.has(name)) out.push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const body = out
    .join('')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n')
    .trim();
  return title.trim() ? `${title.trim()}\n${body}` : body;
}
