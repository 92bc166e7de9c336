/**
 * The JSON views of a page version. Names are resolved on the server; a deleted user is
 * absent from `contributors` and leaves `createdBy` null.
 */
import type { VersionRecord } from '../documents/versions.ts';

/** The record as JSON: the timestamp as ISO text. */
export type VersionView = Omit<VersionRecord, 'createdAt'> & { createdAt: string };

/** The detail view: the version's document rendered, not the page's current content. */
export type VersionDetailView = VersionView & { html: string; markdown: string };

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
