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

const INLINE_SCRIPT = /<script>([^<]*(?:<(?!\/script>)[^<]*)*)<\/script>/g;
const SCRIPT_SRC_HASH = /'sha256-([A-Za-z0-9+/=]+)'/g;

/** The page with Astro's own inline scripts moved to just before `</body>`; unchanged when there are none. */
export function moveIslandScriptsLast(html: string, contentSecurityPolicy: string | null): string {
  const scriptSrc = (contentSecurityPolicy ?? '').split(';').find((directive) => directive.trim().startsWith('script-src'));
  if (!scriptSrc) return html;
  const hashes = new Set([...scriptSrc.matchAll(SCRIPT_SRC_HASH)].map((match) => match[1]));
  const bodyEnd = html.lastIndexOf('</body>');
  if (bodyEnd < 0 || hashes.size === 0) return html;
  const moved: string[] = [];
  const rest = html.slice(0, bodyEnd).replace(INLINE_SCRIPT, (script: string, content: string) => {
    if (!hashes.has(createHash('sha256').update(content).digest('base64'))) return script;
    moved.push(script);
    return '';
  });
  if (moved.length === 0) return html;
  return `${rest}${moved.join('')}${html.slice(bodyEnd)}`;
}
