/**
 * What a generated public document shows: built by the generator (publicDocumentData.ts) from
 * the database, rendered by the Astro layout (site/src/pages/__dt/public-document.astro)
 * into one self-contained HTML document without any script. Everything here is identical
 * for every reader: no session. The landing page is generated once per locale (the hot path
 * picks one from `Accept-Language`); every other document is in the instance default locale.
 */
import type { PondFonts } from '../ponds/fontCatalog.ts';

export type PublicDocumentKind = 'page' | 'pond' | 'home' | 'legal';

export interface PublicLink {
  title: string;
  /** A path on our origin (`/pond/page`); the layout uses it as given. */
  href: string;
}

export interface PublicOutlineEntry {
  level: number;
  text: string;
  /** The heading's element id in `bodyHtml` (`h-…`). */
  id: string;
}

/** A node of a pond's public page tree (the pond index). */
export interface PublicTreeNode extends PublicLink {
  children: PublicTreeNode[];
}

/** One comment as a public page shows it (read-only). */
export interface PublicComment {
  /** Display name ("Deleted user", localized, for a deleted account). */
  author: string;
  /** ISO time. */
  createdAt: string;
  edited: boolean;
  /** Sanitized at write time by the comment renderer (content-pipeline `renderCommentHtml`). */
  bodyHtml: string;
}

/** An open comment thread: its root and replies, oldest first. */
export interface PublicCommentThread extends PublicComment {
  /** The passage the thread is about, as quoted when it was started; null when not anchored. */
  quote: string | null;
  replies: PublicComment[];
}

/** What the landing page lists besides its text (only what the public may read). */
export interface PublicLanding {
  /** Sign up is offered next to Sign in. */
  registrationOpen: boolean;
  /** Ponds with public pages, newest change first. */
  ponds: (PublicLink & { pageCount: number })[];
  /** Public pages changed most recently, newest first. */
  recentPages: (PublicLink & { pondTitle: string; updatedAt: string })[];
}

export interface PublicDocumentModel {
  kind: PublicDocumentKind;
  /** Labels of the layout (breadcrumbs, "Contents", footer): the instance default locale, the landing page's own locale. */
  locale: 'de' | 'en';
  instanceName: string;
  /** The document's own title (page title, pond name, legal page name, landing heading). */
  title: string;
  /** Meta and OpenGraph description: plain text, at most ~160 characters. */
  description: string;
  /** Absolute human URL (`BASE_URL` + path). */
  canonicalUrl: string;
  /** `<link rel="alternate" type="application/atom+xml">`: absolute feed URLs. */
  feeds: { title: string; href: string }[];
  /** Catalog font ids per slot (api/ponds/fontCatalog.ts); the site's defaults for site documents. */
  fonts: PondFonts;
  /** The pond a page or pond index belongs to; `null` for site documents. */
  pond: PublicLink | null;
  /** Public ancestors, root first (not the page itself). */
  breadcrumbs: PublicLink[];
  outline: PublicOutlineEntry[];
  /** Sanitized body, transclusions and plugin blocks already expanded. Empty for a pond index. */
  bodyHtml: string;
  /** Public children in tree order. */
  children: PublicLink[];
  /** Public pages linking here, by title. */
  backlinks: PublicLink[];
  /** A page's open comment threads, oldest first; nothing is shown when empty. */
  comments: PublicCommentThread[];
  /** The pond index only: the public page tree. */
  tree: PublicTreeNode[];
  /** ISO time of the last content change, or null (site documents). */
  updatedAt: string | null;
  /** Section-style CSS of the active plugins, inlined as a style block ('' when none). */
  pluginStyles: string;
  /** The landing page only: its actions and lists; null for every other document. */
  landing: PublicLanding | null;
  /** The footer's legal links (always present; an unconfigured page shows a notice). */
  legal: { imprint: string; privacy: string };
}
