/**
 * Which addresses the link form writes into a page: web addresses (http, https), mail
 * addresses (mailto:) and paths on this site (`/…`, `#…`). Anything else (`javascript:`,
 * `data:`, a bare word, `//other.host`) is refused, so no link in a page runs code or leaves
 * through a scheme nobody meant. Pure, so the rules are tested on their own.
 */
export type LinkAddressCheck = { ok: true; href: string } | { ok: false; reason: 'empty' | 'refused' };

const WEB_OR_MAIL = /^(https?|mailto):/i;

export function checkLinkAddress(input: string): LinkAddressCheck {
  const href = input.trim();
  if (href === '') return { ok: false, reason: 'empty' };
  // Whitespace or control characters inside an address hide what it really is.
  if (/[\s\u0000-\u001f\u007f]/.test(href)) return { ok: false, reason: 'refused' };
  if (href.startsWith('#')) return { ok: true, href };
  if (href.startsWith('/')) return /^\/[/\\]/.test(href) ? { ok: false, reason: 'refused' } : { ok: true, href };
  const scheme = WEB_OR_MAIL.exec(href)?.[1]?.toLowerCase();
  if (!scheme) return { ok: false, reason: 'refused' };
  if (scheme === 'mailto') return href.length > 'mailto:'.length ? { ok: true, href } : { ok: false, reason: 'refused' };
  // The URL parser would read `http:///x` as the host `x`; a web address names its host right after `//`.
  if (!/^https?:\/\/[^/\\]/i.test(href)) return { ok: false, reason: 'refused' };
  let parsed: URL;
  try {
    parsed = new URL(href);
  } catch {
    return { ok: false, reason: 'refused' };
  }
  return parsed.hostname ? { ok: true, href } : { ok: false, reason: 'refused' };
}
