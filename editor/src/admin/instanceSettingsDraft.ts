/**
 * The instance settings form's fields as text (what the inputs hold) and back: the settings
 * `GET /admin/settings` answers become a draft; a draft becomes the patch of only the keys that
 * changed, or the field problems found before sending. Sizes are edited in GiB (storage) and
 * MiB (largest file); a quota can be unlimited (null).
 */
import type { Translate } from '../i18n/translator.ts';

export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;

export interface InstanceSettings {
  'instance.name': string;
  'instance.baseUrl': string | null;
  'instance.defaultLocale': 'de' | 'en';
  'registration.mode': 'open' | 'closed';
  'trash.retentionDays': number;
  'conversion.payloadRetentionDays': number;
  'upload.allowedExtensions': string[];
  'upload.svgPolicy': 'reject' | 'sanitize';
  'quota.editors_per_pond': number | null;
  'quota.readers_per_pond': number | null;
  'quota.storage_bytes': number | null;
  'quota.max_file_bytes': number | null;
}

export type SettingsKey = keyof InstanceSettings;
export const SETTINGS_KEYS: SettingsKey[] = [
  'instance.name',
  'instance.baseUrl',
  'instance.defaultLocale',
  'registration.mode',
  'trash.retentionDays',
  'conversion.payloadRetentionDays',
  'upload.allowedExtensions',
  'upload.svgPolicy',
  'quota.editors_per_pond',
  'quota.readers_per_pond',
  'quota.storage_bytes',
  'quota.max_file_bytes',
];

export type QuotaKey = 'quota.editors_per_pond' | 'quota.readers_per_pond' | 'quota.storage_bytes' | 'quota.max_file_bytes';
export const QUOTA_KEYS: QuotaKey[] = ['quota.editors_per_pond', 'quota.readers_per_pond', 'quota.storage_bytes', 'quota.max_file_bytes'];
/** What one unit of a quota's field is: seats are counted, sizes edited in GiB and MiB. */
export const QUOTA_UNIT: Record<QuotaKey, number> = { 'quota.editors_per_pond': 1, 'quota.readers_per_pond': 1, 'quota.storage_bytes': GIB, 'quota.max_file_bytes': MIB };

export interface QuotaDraft {
  unlimited: boolean;
  amount: string;
}

export interface SettingsDraft {
  name: string;
  baseUrl: string;
  defaultLocale: 'de' | 'en';
  registration: 'open' | 'closed';
  trashDays: string;
  payloadDays: string;
  extensions: string;
  svgPolicy: 'reject' | 'sanitize';
  quotas: Record<QuotaKey, QuotaDraft>;
}

/** A number for a field: whole when it is, else up to two decimals (5.5 GiB). */
function amountText(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
}

export function draftOf(settings: InstanceSettings): SettingsDraft {
  const quotas = Object.fromEntries(
    QUOTA_KEYS.map((key) => {
      const value = settings[key];
      return [key, value === null ? { unlimited: true, amount: '' } : { unlimited: false, amount: amountText(value / QUOTA_UNIT[key]) }];
    }),
  ) as Record<QuotaKey, QuotaDraft>;
  return {
    name: settings['instance.name'],
    baseUrl: settings['instance.baseUrl'] ?? '',
    defaultLocale: settings['instance.defaultLocale'],
    registration: settings['registration.mode'],
    trashDays: String(settings['trash.retentionDays']),
    payloadDays: String(settings['conversion.payloadRetentionDays']),
    extensions: settings['upload.allowedExtensions'].join(', '),
    svgPolicy: settings['upload.svgPolicy'],
    quotas,
  };
}

/** The extensions as typed: separated by commas or spaces, a leading dot and capitals forgiven. */
export function extensionsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((part) => part.trim().replace(/^\.+/, '').toLowerCase()).filter(Boolean))];
}

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(?:[.,]\d+)?$/;

export interface DraftResult {
  patch: Partial<InstanceSettings>;
  /** Field problems by setting key, in the form's words. */
  problems: Partial<Record<SettingsKey, string>>;
}

/** The keys whose value differs from `saved`, each checked as the API would check it. */
export function patchOf(draft: SettingsDraft, saved: InstanceSettings, t: Translate): DraftResult {
  const values: Partial<InstanceSettings> = {};
  const problems: Partial<Record<SettingsKey, string>> = {};

  const name = draft.name.trim();
  if (name.length === 0 || name.length > 100) problems['instance.name'] = t('adminSettings.error.name');
  else values['instance.name'] = name;

  const baseUrl = draft.baseUrl.trim();
  if (baseUrl === '') values['instance.baseUrl'] = null;
  else if (!/^https?:\/\/[^\s/]+/i.test(baseUrl)) problems['instance.baseUrl'] = t('adminSettings.error.baseUrl');
  else values['instance.baseUrl'] = baseUrl;

  values['instance.defaultLocale'] = draft.defaultLocale;
  values['registration.mode'] = draft.registration;
  values['upload.svgPolicy'] = draft.svgPolicy;

  for (const [key, text] of [
    ['trash.retentionDays', draft.trashDays],
    ['conversion.payloadRetentionDays', draft.payloadDays],
  ] as const) {
    const days = Number(text.trim());
    if (!WHOLE.test(text.trim()) || days < 1 || days > 3650) problems[key] = t('adminSettings.error.days');
    else values[key] = days;
  }

  const extensions = extensionsOf(draft.extensions);
  const badExtension = extensions.find((extension) => !/^[a-z0-9]{1,16}$/.test(extension));
  if (badExtension !== undefined) problems['upload.allowedExtensions'] = t('adminSettings.error.extension', { extension: badExtension });
  else if (extensions.length > 200) problems['upload.allowedExtensions'] = t('adminSettings.error.extensionCount');
  else values['upload.allowedExtensions'] = extensions;

  for (const key of QUOTA_KEYS) {
    const { unlimited, amount } = draft.quotas[key];
    if (unlimited) {
      values[key] = null;
      continue;
    }
    const text = amount.trim();
    const unit = QUOTA_UNIT[key];
    if (unit === 1 ? !WHOLE.test(text) : !DECIMAL.test(text)) {
      problems[key] = t(unit === 1 ? 'adminSettings.error.seats' : 'adminSettings.error.size');
      continue;
    }
    const value = Math.round(Number(text.replace(',', '.')) * unit);
    if (!Number.isSafeInteger(value)) problems[key] = t('adminSettings.error.size');
    else values[key] = value;
  }

  const patch: Partial<InstanceSettings> = {};
  for (const key of SETTINGS_KEYS) {
    if (!(key in values)) continue;
    if (JSON.stringify(values[key]) !== JSON.stringify(saved[key])) (patch as Record<string, unknown>)[key] = values[key];
  }
  return { patch, problems };
}

/** The API's field path (`upload.allowedExtensions.3`) as the form's field key. */
export function settingsKeyOfPath(path: string): SettingsKey | null {
  return SETTINGS_KEYS.find((key) => path === key || path.startsWith(`${key}.`)) ?? null;
}
