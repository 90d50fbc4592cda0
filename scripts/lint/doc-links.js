#!/usr/bin/env node
// Checks the relative links of README.md and docs/**/*.md: the file must exist and, for
// `file.md#anchor`, the anchor must be a heading of that file (GitHub's slugs) or an
// `<a id="...">`. External links (http:, https:, mailto:) are not checked.
//   node scripts/lint/doc-links.js
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

function markdownFiles() {
  const out = [path.join(ROOT, 'README.md')];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  };
  walk(path.join(ROOT, 'docs'));
  return out.filter((p) => fs.existsSync(p));
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file) {
  const seen = new Map();
  const anchors = new Set();
  let fence = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    for (const a of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(a[1].toLowerCase());
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Broken relative links of one Markdown file, as "target (reason)". */
function brokenLinks(file) {
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  const broken = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue;
    const [rel, anchor] = target.split('#');
    const dest = rel ? path.resolve(path.dirname(file), decodeURI(rel)) : file;
    if (!fs.existsSync(dest)) {
      broken.push(`${target} (no such file)`);
      continue;
    }
    if (anchor && dest.endsWith('.md') && !anchorsOf(dest).has(anchor.toLowerCase()))
      broken.push(`${target} (no such heading)`);
  }
  return broken;
}

function main() {
  let bad = 0;
  for (const f of markdownFiles()) {
    for (const b of brokenLinks(f)) {
      bad++;
      console.error(`${path.relative(ROOT, f)}: ${b}`);
    }
  }
  return bad ? 1 : 0;
}

module.exports = { brokenLinks, markdownFiles, slug };

if (require.main === module) process.exitCode = main();
