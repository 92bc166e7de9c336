/**
 * The JSON views of wikilinks: a referrer (the page as a reference) with the plain-text
 * snippet around its link, and the pond's graph.
 */
import { presentPageReference, type PageReferenceView } from './pagePresenter.ts';

/** A page that links somewhere, with the text around its link. */
export interface ReferrerView {
  page: PageReferenceView;
  snippet: string;
}

export interface PhantomLinkView {
  /** The missing page's slug, lowercase (links match slugs case-insensitively). */
  targetSlug: string;
  /**
   * The link's own text where a referrer gives one besides the slug (`[[giessplan|Gießplan]]`
   * → `Gießplan`), from the first referrer (by title) that does; null otherwise. The missing
   * page's natural title.
   */
  linkText: string | null;
  referrers: ReferrerView[];
}

export interface LinkGraphView {
  nodes: (PageReferenceView & { labelIds: string[] })[];
  edges: { source: string; target: string }[];
  phantoms: { targetSlug: string; referrerIds: string[] }[];
}

export interface ReferrerFields {
  id: string;
  title: string;
  slug: string;
  snippet: string;
}

export function presentReferrer(row: ReferrerFields): ReferrerView {
  return { page: presentPageReference(row), snippet: row.snippet };
}
