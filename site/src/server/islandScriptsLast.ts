/**
 * Astro writes its island runtime (the `astro-island` element and the `client:*` directives) as
 * inline classic scripts in front of the first island of each kind, so in the app they stand in
 * the header, before the page's text. Each one stops the HTML parser: it waits for the
 * stylesheets, runs, and Chromium then paints what it has before parsing on, so a member's page
 * was parsed in three slices with a frame in between, and the body's first paragraph was painted
 * a frame or two after the header (bench:editor (a)). At the end of the body the same scripts
 * run once everything is parsed: the islands' server-rendered HTML is shown at once, and the
 * islands are upgraded and hydrate right after, as before.
 *
 * Only scripts Astro emitted are moved: an inline script whose SHA-256 is one of the hashes
 * Astro put in the page's own `script-src` (so the policy still admits them where they land).
 */
import { createHash } from 'node:crypto';

const OPEN = Buffer.from('<script>');
const CLOSE = Buffer.from('</script>');
const BODY_END = Buffer.from('</body>');
const SCRIPT_SRC_HASH = /'sha256-([A-Za-z0-9+/=]+)'/g;

/**
 * The page with Astro's own inline scripts moved to just before `</body>`; the same bytes when
 * there are none. Works on the encoded page: searching and hashing bytes spares decoding and
 * re-encoding 100 KB per page, which cost more than the move itself (bench:editor (a)).
 */
export function moveIslandScriptsLast(page: Uint8Array<ArrayBuffer>, contentSecurityPolicy: string | null): Uint8Array<ArrayBuffer> {
  const scriptSrc = (contentSecurityPolicy ?? '').split(';').find((directive) => directive.trim().startsWith('script-src'));
  if (!scriptSrc) return page;
  const hashes = new Set([...scriptSrc.matchAll(SCRIPT_SRC_HASH)].map((match) => match[1]));
  const html = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  const bodyEnd = html.lastIndexOf(BODY_END);
  if (bodyEnd < 0 || hashes.size === 0) return page;
  const kept: Buffer[] = [];
  const moved: Buffer[] = [];
  let copiedUpTo = 0;
  for (let open = html.indexOf(OPEN); open >= 0 && open < bodyEnd; open = html.indexOf(OPEN, open + OPEN.length)) {
    const close = html.indexOf(CLOSE, open + OPEN.length);
    if (close < 0 || close > bodyEnd) break;
    const end = close + CLOSE.length;
    const content = html.subarray(open + OPEN.length, close);
    if (hashes.has(createHash('sha256').update(content).digest('base64'))) {
      kept.push(html.subarray(copiedUpTo, open));
      moved.push(html.subarray(open, end));
      copiedUpTo = end;
    }
    // The next script starts after this one ends (a `<script>` inside it is its text).
    open = end - OPEN.length;
  }
  if (moved.length === 0) return page;
  return Buffer.concat([...kept, html.subarray(copiedUpTo, bodyEnd), ...moved, html.subarray(bodyEnd)]);
}
