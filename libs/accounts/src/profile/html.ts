const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for HTML/SVG element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]);
}

/** Up to two initials from the name's words, else the e-mail's first letter; `?` when nothing fits. */
export function initialsOf(name: string, email: string): string {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((w) => /\p{L}|\p{N}/u.test(w));
  const first = (w: string) => Array.from(w.replace(/^[^\p{L}\p{N}]+/u, ''))[0] ?? '';
  let initials = words.length
    ? first(words[0]) + (words.length > 1 ? first(words[words.length - 1]) : '')
    : '';
  if (!initials) initials = first(email);
  return (initials || '?').toUpperCase();
}

/** A stable, readable background colour per user. */
export function avatarColour(seed: number): string {
  const hue = (seed * 137) % 360;
  return `hsl(${hue}, 55%, 45%)`;
}

/** The generated avatar: a circle with the initials. Every interpolated value is escaped. */
export function avatarSvg(initials: string, colour: string): string {
  const label = escapeHtml(initials);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" aria-label="${label}">` +
    `<circle cx="64" cy="64" r="64" fill="${escapeHtml(colour)}"/>` +
    `<text x="64" y="64" dy="0.35em" text-anchor="middle" fill="#ffffff" ` +
    `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="52" font-weight="600">` +
    `${label}</text></svg>`
  );
}

/** The profile fragment of `GET /me` (`content`): avatar, name and e-mail, all escaped. */
export function profileHtml(p: { id: number; name: string; email: string; avatarUrl: string }): string {
  const name = escapeHtml(p.name || p.email);
  return (
    `<div class="docqa-profile" data-user-id="${p.id}">` +
    `<img class="docqa-profile__avatar" src="${escapeHtml(p.avatarUrl)}" alt="${name}" width="64" height="64">` +
    `<div class="docqa-profile__name">${name}</div>` +
    `<div class="docqa-profile__email">${escapeHtml(p.email)}</div>` +
    `</div>`
  );
}
