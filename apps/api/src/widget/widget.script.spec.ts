import { WIDGET_SCRIPT } from './widget.script';

describe('/widget.js source', () => {
  it('is one self-contained script that parses as browser JavaScript', () => {
    expect(() => new Function(WIDGET_SCRIPT)).not.toThrow();
    expect(WIDGET_SCRIPT).toContain('docqaWidget(window, document, document.currentScript)');
    // No module system leftovers from compilation: it runs in a plain <script>.
    expect(WIDGET_SCRIPT).not.toMatch(/\brequire\(|\bexports\.|\bimport\s|_interop|__awaiter/);
    expect(WIDGET_SCRIPT).toContain('attachShadow');
    expect(WIDGET_SCRIPT).toContain('aria-live');
  });
});
