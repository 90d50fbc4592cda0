import { normalizeOrigin, requestOrigin } from './origin';

describe('origins', () => {
  it('normalises configured origins to scheme://host[:port]', () => {
    expect(normalizeOrigin('https://Shop.Example.com')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com/')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
    expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeOrigin(' https://xn--bcher-kva.example ')).toBe('https://xn--bcher-kva.example');
  });

  it.each([
    'shop.example.com',
    'https://shop.example.com/path',
    'https://shop.example.com/?q=1',
    'https://user:pw@shop.example.com',
    'ftp://shop.example.com',
    'javascript:alert(1)',
    '*',
    '',
  ])('refuses %j', (v) => expect(normalizeOrigin(v)).toBeNull());

  it('takes the Origin header, else the origin of Referer', () => {
    expect(requestOrigin('https://a.example', 'https://b.example/x')).toBe('https://a.example');
    expect(requestOrigin(undefined, 'https://b.example:8443/x/y?z#w')).toBe('https://b.example:8443');
    expect(requestOrigin('null', 'https://b.example/')).toBe('https://b.example');
    expect(requestOrigin('null', undefined)).toBeNull();
    expect(requestOrigin(undefined, undefined)).toBeNull();
    expect(requestOrigin(undefined, 'not a url')).toBeNull();
    expect(requestOrigin(undefined, 'file:///etc/passwd')).toBeNull();
    expect(requestOrigin(['https://a.example'], undefined)).toBeNull();
  });
});
