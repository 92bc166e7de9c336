/**
 * The JSON views of a page version. Names are resolved on the server; a deleted user is
 * absent from `contributors` and leaves `createdBy` null.
 */
import type { VersionPerson, VersionRecord, VersionTrigger } from '../documents/versions.ts';

export interface VersionView {
  id: string;
  pageId: string;
  trigger: VersionTrigger;
  label: string | null;
  createdBy: VersionPerson | null;
  contributors: VersionPerson[];
  createdAt: string;
}

/** The detail view: the version's document rendered, not the page's current content. */
export interface VersionDetailView extends VersionView {
  html: string;
  markdown: string;
}

export function presentVersion(version: VersionRecord): VersionView {
  return {
    id: version.id,
    pageId: version.pageId,
    trigger: version.trigger,
    label: version.label,
    createdBy: version.createdBy ? { id: version.createdBy.id, displayName: version.createdBy.displayName } : null,
    contributors: version.contributors.map((person) => ({ id: person.id, displayName: person.displayName })),
    createdAt: version.createdAt.toISOString(),
  };
}

export function presentVersionDetail(version: VersionRecord, rendered: { html: string; markdown: string }): VersionDetailView {
  return { ...presentVersion(version), html: rendered.html, markdown: rendered.markdown };
}
