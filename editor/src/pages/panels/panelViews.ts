/**
 * What the side panels read from the API (api/presenters/versionPresenter.ts,
 * api/presenters/linkPresenter.ts), and the words for a version's trigger.
 */
import type { Translate } from '../../i18n/translator.ts';

export interface VersionPersonView {
  id: string;
  displayName: string;
}

/** One entry of `GET /pages/:id/versions`. `trigger` is `auto`, `MANUAL` or `pre_restore`. */
export interface VersionView {
  id: string;
  pageId: string;
  trigger: string;
  label: string | null;
  createdBy: VersionPersonView | null;
  contributors: VersionPersonView[];
  createdAt: string;
}

/** `GET /versions/:id`: the version's document rendered (sanitized by the content pipeline). */
export interface VersionDetailView extends VersionView {
  html: string;
  markdown: string;
}

/** One entry of `GET /pages/:id/backlinks`: a page linking here and the text around its link. */
export interface BacklinkView {
  page: { id: string; title: string; slug: string };
  snippet: string;
}

export function triggerInWords(trigger: string, t: Translate): string {
  if (trigger === 'auto') return t('history.triggerAuto');
  if (trigger === 'MANUAL') return t('history.triggerManual');
  if (trigger === 'pre_restore') return t('history.triggerPreRestore');
  return trigger;
}

/** The session-storage key under which a restore leaves its notice for the reloaded page. */
export const RESTORED_NOTICE_KEY = 'dt.panels.restored';
