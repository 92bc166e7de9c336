/**
 * What an entry shows: the body as sanitized HTML and a plain-text summary.
 *
 * - A page's body is its cached HTML (`page_contents.html`, sanitized by the content pipeline
 *   at save). Its placeholders are expanded as a feed can afford: a transclusion stays the
 *   plain wikilink it holds (its target may be readable by some feed readers and not others,
 *   and one entry must not reach into other pages), a plugin block shows `[plugin content]`.
 * - A version holds only its Yjs state: it is rendered through the pipeline like a save would,
 *   once per version and process (versions never change), kept in a small byte-budgeted cache
 *   so a page feed's 50 versions are not rendered on every poll.
 */
import { documentToHtml, expandPlaceholders, extract, yjsUpdateToDocument } from '../../content-pipeline/index.ts';

export const SUMMARY_MAX_LENGTH = 280;
const VERSION_CACHE_BUDGET_CHARS = 8 * 1024 * 1024;

export interface RenderedBody {
  html: string;
  text: string;
}

/** The cached page HTML with its placeholders degraded to their plain forms. */
export function feedBodyHtml(cachedHtml: string): string {
  // Most pages hold no placeholder: skip parsing and re-serializing up to 50 bodies per poll.
  if (!cachedHtml.includes('data-dt-transclusion') && !cachedHtml.includes('data-dt-plugin')) return cachedHtml;
  return expandPlaceholders(cachedHtml, { resolveTransclusion: () => null });
}

/** Whitespace collapsed, cut at a word boundary with an ellipsis when longer than `max`. */
export function summaryOf(text: string, max = SUMMARY_MAX_LENGTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const versionCache = new Map<string, RenderedBody>();
let versionCacheChars = 0;

function remember(versionId: string, body: RenderedBody): void {
  const size = body.html.length + body.text.length;
  if (size > VERSION_CACHE_BUDGET_CHARS / 4) return;
  versionCache.set(versionId, body);
  versionCacheChars += size;
  // Map order is insertion order: the oldest entries go first.
  for (const [id, cached] of versionCache) {
    if (versionCacheChars <= VERSION_CACHE_BUDGET_CHARS) break;
    versionCache.delete(id);
    versionCacheChars -= cached.html.length + cached.text.length;
  }
}

/** A version's body, from the cache or rendered from `state` (loaded only for versions not cached). */
export function cachedVersionBody(versionId: string): RenderedBody | undefined {
  const cached = versionCache.get(versionId);
  if (cached) {
    // Used again: move to the young end.
    versionCache.delete(versionId);
    versionCache.set(versionId, cached);
  }
  return cached;
}

export function renderVersionBody(versionId: string, state: Uint8Array): RenderedBody {
  const document = yjsUpdateToDocument(state);
  const body = { html: feedBodyHtml(documentToHtml(document)), text: extract(document).text };
  remember(versionId, body);
  return body;
}
