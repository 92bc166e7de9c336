/**
 * The JSON views of a page version. Names are resolved on the server; a deleted account is
 * absent from `contributors` and shows as a localized "Deleted user" in `createdBy`.
 */
import type { VersionPerson, VersionRecord } from '../documents/versions.ts';
import type { Locale } from '../i18n/locale.ts';
import { personDisplayName } from './userPresenter.ts';

/** The record as JSON: the timestamp as ISO text. */
export type VersionView = Omit<VersionRecord, 'createdAt' | 'createdBy'> & { createdBy: VersionPerson | null; createdAt: string };

/** The detail view: the version's document rendered, not the page's current content. */
export type VersionDetailView = VersionView & { html: string; markdown: string };

export function presentVersion(version: VersionRecord, locale: Locale): VersionView {
  return {
    id: version.id,
    pageId: version.pageId,
    trigger: version.trigger,
    label: version.label,
    createdBy: version.createdBy ? { id: version.createdBy.id, displayName: personDisplayName(version.createdBy, locale) } : null,
    contributors: version.contributors.map((person) => ({ id: person.id, displayName: person.displayName })),
    createdAt: version.createdAt.toISOString(),
  };
}

export function presentVersionDetail(version: VersionRecord, rendered: { html: string; markdown: string }, locale: Locale): VersionDetailView {
  return { ...presentVersion(version, locale), html: rendered.html, markdown: rendered.markdown };
}
