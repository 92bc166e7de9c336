/**
 * Instance settings under dotted keys: every known key with its schema and default.
 * `PATCH /admin/settings` accepts only `adminEditable` keys; the others are written by
 * the setup wizard (and `setup.completedAt` can never be changed or removed).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { z } from 'zod';
import { Setting } from '../models/index.ts';
import { settingsPatchSchema } from './settingsPatch.ts';

const httpUrl = z.url({ protocol: /^https?$/ }).transform((value) => new URL(value).origin);
const retentionDays = z.number().int().min(1).max(3650);
const quota = z.number().int().min(0).nullable();
const markdownText = z.string().max(200_000);

const smtpSettingsSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  secure: z.boolean(),
  username: z.string().optional(),
  password: z.string().optional(),
  from: z.string(),
});

interface SettingDefinition<T> {
  schema: z.ZodType<T>;
  default: T;
  adminEditable: boolean;
  /**
   * Null is a value of its own here (a quota: unlimited), stored as such, instead of resetting
   * the key to its default; to go back to the default, send the default.
   */
  nullIsValue: boolean;
}

function define<T>(schema: z.ZodType<T>, defaultValue: T, adminEditable = true): SettingDefinition<T> {
  return { schema, default: defaultValue, adminEditable, nullIsValue: false };
}

/** A quota: a count or bytes, or null for unlimited (api/quotas/quotaLadder.ts). */
function defineQuota(defaultValue: number): SettingDefinition<number | null> {
  return { schema: quota, default: defaultValue, adminEditable: true, nullIsValue: true };
}

export const SETTING_DEFINITIONS = {
  'instance.name': define(z.string().trim().min(1).max(100), 'Dorfteich'),
  'instance.baseUrl': define<string | null>(httpUrl.nullable(), null),
  'instance.defaultLocale': define(z.enum(['de', 'en']), 'en'),
  'registration.mode': define(z.enum(['open', 'closed']), 'closed'),
  'trash.retentionDays': define(retentionDays, 30),
  'conversion.payloadRetentionDays': define(retentionDays, 30),
  'upload.allowedExtensions': define(
    z.array(z.string().regex(/^[a-z0-9]{1,16}$/, 'lowercase letters and digits, no dot')).max(200),
    ['pdf', 'txt', 'md', 'csv', 'docx', 'odt', 'xlsx', 'ods', 'pptx', 'odp', 'zip'],
  ),
  'upload.svgPolicy': define(z.enum(['reject', 'sanitize']), 'sanitize'),
  'api.enabled': define(z.boolean(), false),
  'mcp.enabled': define(z.boolean(), false),
  'home.content': define(markdownText, ''),
  'legal.imprint': define(markdownText, ''),
  'legal.privacy': define(markdownText, ''),
  'quota.editors_per_pond': defineQuota(100),
  'quota.readers_per_pond': defineQuota(1000),
  'quota.storage_bytes': defineQuota(5 * 1024 ** 3),
  'quota.max_file_bytes': defineQuota(50 * 1024 ** 2),
  'setup.completedAt': define<string | null>(z.iso.datetime().nullable(), null, false),
  'setup.adminId': define<string | null>(z.uuid().nullable(), null, false),
  'setup.instanceSavedAt': define<string | null>(z.iso.datetime().nullable(), null, false),
  'setup.registrationSavedAt': define<string | null>(z.iso.datetime().nullable(), null, false),
  /** When the setup admin chose to go on without mail; cleared when a relay is saved. The wizard resumes past the step. */
  'setup.smtpSkippedAt': define<string | null>(z.iso.datetime().nullable(), null, false),
  'smtp.settings': define<z.infer<typeof smtpSettingsSchema> | null>(smtpSettingsSchema.nullable(), null, false),
} as const;

export type SettingKey = keyof typeof SETTING_DEFINITIONS;
export type SettingValue<K extends SettingKey> = (typeof SETTING_DEFINITIONS)[K]['default'];
type SettingValues = { [K in SettingKey]: SettingValue<K> };

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTING_DEFINITIONS, key);
}

export async function getSetting<K extends SettingKey>(key: K, transaction?: Transaction): Promise<SettingValue<K>> {
  const row = await Setting.findByPk(key, { transaction });
  return (row ? row.value : SETTING_DEFINITIONS[key].default) as SettingValue<K>;
}

/** All settings with defaults filled in; the secret SMTP password is never included. */
export async function getAllSettings(transaction?: Transaction): Promise<SettingValues> {
  return settingValuesOf(await Setting.findAll({ transaction }));
}

function settingValuesOf(rows: readonly { key: string; value: unknown }[]): SettingValues {
  const values = Object.fromEntries(
    Object.entries(SETTING_DEFINITIONS).map(([key, definition]) => [key, definition.default]),
  ) as Record<string, unknown>;
  for (const row of rows) if (isSettingKey(row.key)) values[row.key] = row.value;
  return values as SettingValues;
}

/**
 * All settings (as `getAllSettings`) and whether the account `setup.adminId` names still
 * exists, in one statement: the setup state is read for every page of the app.
 */
export async function getAllSettingsWithAdmin(sequelize: Sequelize): Promise<{ settings: SettingValues; adminExists: boolean }> {
  const rows = await sequelize.query<{ key: string | null; value: unknown; admin_exists: boolean | null }>(
    `SELECT key, value, NULL::boolean AS admin_exists FROM settings
     UNION ALL
     SELECT NULL, NULL, EXISTS (
       SELECT 1 FROM settings s JOIN users u
         ON u.id = CASE WHEN s.value #>> '{}' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (s.value #>> '{}')::uuid END
        WHERE s.key = 'setup.adminId')`,
    { type: QueryTypes.SELECT },
  );
  const settings = settingValuesOf(rows.filter((row): row is { key: string; value: unknown; admin_exists: null } => row.key !== null));
  return { settings, adminExists: rows.some((row) => row.key === null && row.admin_exists === true) };
}

export async function setSetting<K extends SettingKey>(
  key: K,
  value: SettingValue<K> | null,
  options: { actorId: string | null; transaction: Transaction },
): Promise<void> {
  if (value === null && !SETTING_DEFINITIONS[key].nullIsValue) {
    await Setting.destroy({ where: { key }, transaction: options.transaction });
    return;
  }
  // As JSON text cast to jsonb: a null (an unlimited quota) is stored as JSON null, which the
  // model would write as SQL NULL.
  await Setting.sequelize!.query(
    `INSERT INTO settings (key, value, updated_by) VALUES (:key, CAST(:json AS jsonb), :actorId)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by, updated_at = now()`,
    { replacements: { key, json: JSON.stringify(value), actorId: options.actorId }, transaction: options.transaction },
  );
}

/**
 * The `PATCH /admin/settings` body: dotted keys to values, null resetting a key to its
 * default; at least one key. Keys the wizard owns are locked.
 */
export const settingsPatchBody = settingsPatchSchema(
  Object.fromEntries(Object.entries(SETTING_DEFINITIONS).map(([key, definition]) => [key, definition.schema])) as { [K in SettingKey]: z.ZodType<SettingValue<K>> },
  { lockedKeys: (Object.keys(SETTING_DEFINITIONS) as SettingKey[]).filter((key) => !SETTING_DEFINITIONS[key].adminEditable) },
).refine((patch) => Object.keys(patch).length > 0);
