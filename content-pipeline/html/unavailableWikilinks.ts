/**
 * Wikilinks a reader cannot follow, for the public layer: a visitor never meets a dead link,
 * so a link to a page the public may not read (a private page, a phantom) is shown as its
 * text, without an href. Works on the serialized body, which is documentToHtml's (or, after
 * an expansion, hast-util-to-html's) serialization of a wikilink: an `<a>` with the href,
 * `data-slug` and class in that order, holding only text (marks wrap it from the outside;
 * its text is escaped, so it holds no `<`).
 */
import { fromHtml } from 'hast-util-from-html';

const WIKILINK = /<a href="[^"]*" data-slug="([^"]*)" class="dt-wikilink">([^<]*)<\/a>/g;

/** The distinct targets of the body's wikilinks, lowercase (slugs compare case-insensitively). */
export function wikilinkTargets(html: string): string[] {
  if (!html.includes('dt-wikilink')) return [];
  return [...new Set([...html.matchAll(WIKILINK)].map((match) => match[1]!.toLowerCase()))];
}

/**
 * The body with every wikilink whose (lowercase) target `linkable` refuses turned into
 * `<span data-slug="…" class="dt-wikilink-unavailable">text</span>`: the same words, nothing to click.
 */
export function unlinkWikilinks(html: string, linkable: (slug: string) => boolean): string {
  if (!html.includes('dt-wikilink')) return html;
  return html.replace(WIKILINK, (whole, slug: string, text: string) =>
    linkable(slug.toLowerCase()) ? whole : `<span data-slug="${slug}" class="dt-wikilink-unavailable">${text}</span>`,
  );
}

/**
 * A wikilink's text as it stands in the serialized body (character references and all), as
 * plain text: `Gie&#xDF;plan &#x26; co` → `Gießplan & co`.
 */
export function wikilinkTextFromHtml(serialized: string): string {
  let text = '';
  const collect = (node: { type: string; value?: string; children?: unknown[] }): void => {
    if (node.type === 'text') text += node.value ?? '';
    for (const child of node.children ?? []) collect(child as typeof node);
  };
  collect(fromHtml(serialized, { fragment: true }));
  return text;
}
