const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The demo page: one script tag, exactly as a website embeds the widget. */
export function demoPage(key: string | null): string {
  const tag = key
    ? `<script src="/widget.js" data-key="${escapeHtml(key)}" data-title="Ask the docs" data-open="true"></script>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DocQA chat widget demo</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 720px; margin: 40px auto; padding: 0 16px; color: #1f2328; }
  code, pre { background: #f6f8fa; border-radius: 4px; padding: 2px 4px; }
  pre { padding: 12px; overflow-x: auto; }
</style>
</head>
<body>
<main>
<h1>DocQA chat widget demo</h1>
${
  key
    ? '<p>The chat box in the corner is the widget, loaded by this one tag:</p>'
    : '<p><strong>No key given.</strong> Open this page with <code>?key=cb_...</code> (a chatbot key of an account on the Pro or Business plan) to try the widget.</p><p>A website embeds it with:</p>'
}
<pre>${escapeHtml(`<script src="https://YOUR-DOCQA-HOST/widget.js" data-key="${key ? 'cb_…' : 'cb_...'}"></script>`)}</pre>
<p>A key locked to an origin answers only pages of that origin; this page's origin is the API's own.</p>
</main>
${tag}
</body>
</html>
`;
}
