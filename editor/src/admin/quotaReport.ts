/**
 * The answer of `GET /admin/quotas` (api/quotas/quotaAdmin.ts) and how the screen puts its
 * numbers into words.
 */
import { sizeInWords } from '../files/fileViews.ts';
import type { Locale, Translate } from '../i18n/translator.ts';
import { isByteQuota, type QuotaName } from './quotaAmounts.ts';

export type QuotaTargetType = 'user' | 'pond';

export interface QuotaTarget {
  type: QuotaTargetType;
  id: string;
  name: string;
  slug?: string;
  owner?: { id: string; username: string } | null;
  displayName?: string;
}

export interface QuotaRow {
  quota: QuotaName;
  /** `{ value }` when an override is set (`value: null`: unlimited); null when none is. */
  override: { value: number | null } | null;
  default: number | null;
  effective: number | null;
  source: 'pond' | 'user' | 'instance';
  usage: { used: number; pond: { id: string; slug: string; name: string } | null; ponds: number; allowedNow?: number | null };
}

export interface QuotaReport {
  target: QuotaTarget;
  quotas: QuotaRow[];
}

export function limitInWords(quota: QuotaName, value: number | null, locale: Locale, t: Translate): string {
  if (value === null) return t('adminQuotas.unlimited');
  return isByteQuota(quota) ? sizeInWords(value, locale) : new Intl.NumberFormat(locale === 'de' ? 'de-DE' : 'en-US').format(value);
}

export function sourceInWords(row: QuotaRow, target: QuotaTarget, t: Translate): string {
  if (row.source === 'pond') return t('adminQuotas.source.pond');
  if (row.source === 'user') return t(target.type === 'user' ? 'adminQuotas.source.user' : 'adminQuotas.source.owner');
  return t('adminQuotas.source.instance');
}

/** What is used, in words; for a user, where (their busiest governed pond). */
export function usageInWords(row: QuotaRow, target: QuotaTarget, locale: Locale, t: Translate): string[] {
  const { usage, quota } = row;
  if (target.type === 'user' && usage.ponds === 0) return [t('adminQuotas.noPonds')];
  const size = (bytes: number) => sizeInWords(bytes, locale);
  const lines: string[] = [];
  if (quota === 'storage_bytes') lines.push(t('adminQuotas.stored', { size: size(usage.used) }));
  else if (quota === 'max_file_bytes') lines.push(usage.used === 0 ? t('adminQuotas.noFiles') : t('adminQuotas.largestFile', { size: size(usage.used) }));
  else lines.push(t('adminQuotas.seatsTaken', { count: usage.used }));
  if (target.type === 'user' && usage.pond) {
    lines[0] += ` ${usage.ponds === 1 ? t('adminQuotas.inOnlyPond', { pond: usage.pond.name }) : t('adminQuotas.inPond', { pond: usage.pond.name, count: usage.ponds })}`;
  }
  if (usage.allowedNow !== undefined) lines.push(t('adminQuotas.allowedNow', { size: usage.allowedNow === null ? t('adminQuotas.unlimited') : size(usage.allowedNow) }));
  return lines;
}
