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

export interface PageDetailView extends PageView {
  /** Sorted, so clients and tests can compare sets as arrays. */
  labelIds: string[];
  canWrite: boolean;
  pond: { id: string; slug: string; name: string };
}

/** The fields a view is built from: a `Page` model or a row of the page listing. */
export type PageFields = Pick<Page, 'id' | 'pondId' | 'slug' | 'title' | 'parentId' | 'position' | 'trashedAt' | 'createdAt' | 'updatedAt' | 'createdBy' | 'updatedBy'>;

export function presentPage(page: PageFields, parentReadable: boolean): PageView {
  return {
    id: page.id,
    pondId: page.pondId,
    slug: page.slug,
    title: page.title,
    parentId: parentReadable ? page.parentId : null,
    position: page.position,
    trashedAt: page.trashedAt ? page.trashedAt.toISOString() : null,
    createdAt: page.createdAt.toISOString(),
    updatedAt: page.updatedAt.toISOString(),
    createdBy: page.createdBy,
    updatedBy: page.updatedBy,
  };
}

export interface PageDetailContext {
  pond: Pick<Pond, 'id' | 'slug' | 'name'>;
  labelIds: readonly string[];
  parentReadable: boolean;
  canWrite: boolean;
}

export function presentPageDetail(page: PageFields, context: PageDetailContext): PageDetailView {
  return {
    ...presentPage(page, context.parentReadable),
    labelIds: [...context.labelIds].sort(),
    canWrite: context.canWrite,
    pond: { id: context.pond.id, slug: context.pond.slug, name: context.pond.name },
  };
}
