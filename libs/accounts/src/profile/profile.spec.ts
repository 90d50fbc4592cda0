import { Signer } from '@docqa/common';
import { avatarSvg, escapeHtml, initialsOf, profileHtml } from './html';
import { signGlobalId, verifySignedGlobalId } from './sgid';

describe('profile rendering', () => {
  it('escapes every user value in the fragment', () => {
    const html = profileHtml({
      id: 7,
      name: `<script>alert("x")</script>`,
      email: `o'hara&co@example.com`,
      avatarUrl: `https://h/a.svg?x="><img onerror=1>`,
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img onerror');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('o&#39;hara&amp;co@example.com');
    expect(escapeHtml('`')).toBe('&#96;');
  });

  it('derives initials and escapes them in the SVG', () => {
    expect(initialsOf('Ada Lovelace', 'a@x.io')).toBe('AL');
    expect(initialsOf('  grace  brewster murray hopper ', 'g@x.io')).toBe('GH');
    expect(initialsOf('', 'zoe@x.io')).toBe('Z');
    expect(initialsOf('émile zola', 'e@x.io')).toBe('ÉZ');
    expect(initialsOf('<b>', 'q@x.io')).toBe('B');
    const svg = avatarSvg('<&', 'hsl(1, 2%, 3%)');
    expect(svg).toContain('&lt;&amp;');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });
});

describe('signed global ids', () => {
  const signer = new Signer('unit-secret-0123456789abcdef0123456789', 'sgid');

  it('round-trips and refuses forgeries', () => {
    const sgid = signGlobalId(signer, 'User', 42);
    expect(Buffer.from(sgid.split('--')[0], 'base64url').toString()).toBe('gid://docqa/User/42');
    expect(verifySignedGlobalId(signer, sgid)).toEqual({ model: 'User', id: 42 });
    const forged = `${Buffer.from('gid://docqa/User/43').toString('base64url')}--${sgid.split('--')[1]}`;
    expect(verifySignedGlobalId(signer, forged)).toBeNull();
    expect(verifySignedGlobalId(new Signer('another-secret-0123456789abcdef0123', 'sgid'), sgid)).toBeNull();
    expect(verifySignedGlobalId(signer, 'garbage')).toBeNull();
    expect(verifySignedGlobalId(signer, '--')).toBeNull();
  });
});
