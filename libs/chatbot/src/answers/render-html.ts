import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

const markdown = new Marked({ gfm: true, breaks: false, async: false });

/**
 * What the rendered answer may contain: text formatting, lists, tables, code and links. No
 * script, style, iframe, form or image, no `on*` handler and no `style` attribute; links only to
 * http(s) and mailto, opened in a new tab without an opener. Anything else that document text
 * smuggled into the Markdown is dropped (its text kept, where it has any).
 */
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'pre',
    'code',
    'em',
    'strong',
    'del',
    's',
    'sup',
    'sub',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], ol: ['start'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'template'],
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' },
    }),
  },
};

/** Sanitises an HTML fragment with the answer policy. */
export function sanitizeAnswerHtml(html: string): string {
  return sanitizeHtml(html, POLICY);
}

/**
 * Markdown answer -> safe HTML. `[n]` citation markers become links to the citations' `source`
 * (when `links[n]` is given) before rendering; the result is sanitised last, so nothing from the
 * documents' text, the model or the links can add script.
 */
export function renderAnswerHtml(
  markdownText: string,
  links: ReadonlyMap<number, string> = new Map(),
): string {
  const withLinks = markdownText.replace(/\[(\d+)\](?!\()/g, (m, digits: string) => {
    const href = links.get(Number(digits));
    return href ? `<sup><a href="${escapeAttr(href)}">[${digits}]</a></sup>` : m;
  });
  const html = markdown.parse(withLinks) as string;
  return sanitizeAnswerHtml(html).trim();
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
