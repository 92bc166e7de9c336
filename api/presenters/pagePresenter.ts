/**
 * The JSON views of a page. `parentId` is nulled when the caller may not read the parent,
 * so a view never reveals a page the caller cannot see; the caller decides that and passes it in.
 */
import type { Page, Pond } from '../models/index.ts';

export interface PageView {
  id: string;
  pondId: string;
  slug: string;
  title: string;
  parentId: string | null;
  position: string;
  trashedAt: string | null;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
}

/** A page in a pond's page list: its labels too, so a sidebar can group by label without a request per page. */
export interface PageListItemView extends PageView {
  /** Sorted, like the detail's. */
  labelIds: string[];
}

export interface PageDetailView extends PageView {
  /** Sorted, so clients and tests can compare sets as arrays. */
  labelIds: string[];
  canWrite: boolean;
  /** Whether the public (anonymous visitors) may read the page: the app's "Public" badge. */
  publicRead: boolean;
  pond: { id: string; slug: string; name: string };
}

/** A page as something else names it (a link, a graph node, a search hit): enough to show and open it. */
export interface PageReferenceView {
  id: string;
  title: string;
  slug: string;
}

export function presentPageReference(page: PageReferenceView): PageReferenceView {
  return { id: page.id, title: page.title, slug: page.slug };
}

/**
 * A timestamp as a `Date`, or already as ISO 8601 text: hot listings read timestamps as text
 * (parsing thousands of them into Dates cost half the listing's time).
 */
type Timestamp = Date | string;

/** The fields a view is built from: a `Page` model or a row of a raw listing query. */
export interface PageFields extends Pick<Page, 'id' | 'pondId' | 'slug' | 'title' | 'parentId' | 'position' | 'createdBy' | 'updatedBy'> {
  trashedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

function isoOf(timestamp: Timestamp): string {
  return typeof timestamp === 'string' ? timestamp : timestamp.toISOString();
}

/** The one place a page's JSON view is built. */
export function presentPage(page: PageFields, parentReadable: boolean): PageView {
  return {
    id: page.id,
    pondId: page.pondId,
    slug: page.slug,
    title: page.title,
    parentId: parentReadable ? page.parentId : null,
    position: page.position,
    trashedAt: page.trashedAt ? isoOf(page.trashedAt) : null,
    createdAt: isoOf(page.createdAt),
    updatedAt: isoOf(page.updatedAt),
    createdBy: page.createdBy,
    updatedBy: page.updatedBy,
  };
}

export interface PageDetailContext {
  pond: Pick<Pond, 'id' | 'slug' | 'name'>;
  labelIds: readonly string[];
  parentReadable: boolean;
  canWrite: boolean;
  publicRead: boolean;
}

export function presentPageDetail(page: PageFields, context: PageDetailContext): PageDetailView {
  return {
    ...presentPage(page, context.parentReadable),
    labelIds: [...context.labelIds].sort(),
    canWrite: context.canWrite,
    publicRead: context.publicRead,
    pond: { id: context.pond.id, slug: context.pond.slug, name: context.pond.name },
  };
}
