/**
 * What the pond's Files screen (`/:pondSlug/-/files`) derives from `GET /ponds/:id/files`:
 * the usage line and why a file counts as an orphan. Pure, so the wording is tested on its own.
 */
import type { PondFileList, PondFileView } from '../../../api/files/pondFileList.ts';
import type { Locale, MessageKey, Translate } from '../i18n/translator.ts';
import { sizeInWords } from './fileViews.ts';

/** One file as the pond admin's list answers it (api/files/pondFileList.ts). */
export type { PondFileList, PondFileView };
export type PondFileUsage = PondFileList['usage'];

/** `2.8 MB of 5 GB used · 12 files`, or `… used · 12 files · no limit` when no quota applies. */
export function usageInWords(usage: PondFileUsage, locale: Locale, t: Translate): string {
  const used = sizeInWords(usage.usedBytes, locale);
  const amount = usage.limitBytes === null ? t('pondFiles.usedNoLimit', { used }) : t('pondFiles.usedOf', { used, limit: sizeInWords(usage.limitBytes, locale) });
  const count = usage.fileCount === 1 ? t('pondFiles.countOne') : t('pondFiles.count', { count: usage.fileCount });
  return `${amount} · ${count}`;
}

/** Who set the limit that applies: the pond's own override, the pond owner's, or the site's default. */
export function limitSourceKey(usage: PondFileUsage): MessageKey {
  return `pondFiles.limitSource.${usage.limitSource}`;
}

/**
 * Why a file is an orphan, or null when its page's text still uses it. The two kinds differ in
 * what happens next: the nightly sweep deletes an unclaimed upload after 24 h, while a claimed
 * file that left the text stays (an undo or an older version may bring it back) until deleted.
 */
export function orphanReasonKey(file: Pick<PondFileView, 'orphan' | 'claimed'>): MessageKey | null {
  if (!file.orphan) return null;
  return file.claimed ? 'pondFiles.orphanLeftText' : 'pondFiles.orphanUnsaved';
}
