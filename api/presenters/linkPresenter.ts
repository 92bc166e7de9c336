/**
 * The JSON views of wikilinks: a page named by a link (id, title, slug only: enough to show
 * and open it), a referrer with the plain-text snippet around its link, and the pond's graph.
 */

export interface LinkedPageView {
  id: string;
  title: string;
  slug: string;
}

/** A page that links somewhere, with the text around its link. */
export interface ReferrerView {
  page: LinkedPageView;
  snippet: string;
}

export interface PhantomLinkView {
  /** The missing page's slug, lowercase (links match slugs case-insensitively). */
  targetSlug: string;
  referrers: ReferrerView[];
}

export interface LinkGraphView {
  nodes: (LinkedPageView & { labelIds: string[] })[];
  edges: { source: string; target: string }[];
  phantoms: { targetSlug: string; referrerIds: string[] }[];
}

export interface ReferrerFields {
  id: string;
  title: string;
  slug: string;
  snippet: string;
}

export function presentLinkedPage(page: LinkedPageView): LinkedPageView {
  return { id: page.id, title: page.title, slug: page.slug };
}

export function presentReferrer(row: ReferrerFields): ReferrerView {
  return { page: presentLinkedPage(row), snippet: row.snippet };
}
