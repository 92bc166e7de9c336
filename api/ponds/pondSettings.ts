/**
 * Pond settings (spec: Pond): a JSON object of known keys. The database keeps only the keys
 * a pond admin set; views fill in the defaults, so changing a default reaches every pond that
 * never chose otherwise. A PATCH merges key by key, and `null` resets a key to its default.
 */
import { z } from 'zod';
import { settingsPatchSchema } from '../settings/settingsPatch.ts';

export const POND_SETTING_SCHEMAS = {
  /** Who may write comments: readers and up, or editors and up. */
  commentPolicy: z.enum(['readers', 'editors']),
  apiEnabled: z.boolean(),
  mcpEnabled: z.boolean(),
  /** The pond's default sidebar presentation: folder tree or label grouping. */
  sidebarView: z.enum(['tree', 'labels']),
} as const;

export type PondSettingKey = keyof typeof POND_SETTING_SCHEMAS;
export type PondSettings = { [K in PondSettingKey]: z.infer<(typeof POND_SETTING_SCHEMAS)[K]> };
/** A validated PATCH: a value sets the key, `null` resets it. */
export type PondSettingsPatch = { [K in PondSettingKey]?: PondSettings[K] | null };

export const POND_SETTING_DEFAULTS: Readonly<PondSettings> = Object.freeze({
  commentPolicy: 'readers',
  apiEnabled: false,
  mcpEnabled: false,
  sidebarView: 'tree',
});

export const POND_SETTING_KEYS = Object.keys(POND_SETTING_SCHEMAS) as PondSettingKey[];

/** Every known key, stored value or default. A stored value that no longer validates counts as unset. */
export function withSettingDefaults(stored: Readonly<Record<string, unknown>>): PondSettings {
  const settings: Record<string, unknown> = { ...POND_SETTING_DEFAULTS };
  for (const key of POND_SETTING_KEYS) {
    const result = POND_SETTING_SCHEMAS[key].safeParse(stored[key]);
    if (result.success) settings[key] = result.data;
  }
  return settings as PondSettings;
}

/**
 * The `settings` object of a PATCH. An unknown key → 400 `unknown_setting` with every such
 * key in `details.keys`; a bad value → 400 `validation_failed` naming `settings.<key>`.
 */
export const pondSettingsPatchSchema: z.ZodType<PondSettingsPatch> = settingsPatchSchema(POND_SETTING_SCHEMAS);

/** The stored object after a PATCH: set keys replaced, `null` keys removed, the rest kept. */
export function mergePondSettings(stored: Readonly<Record<string, unknown>>, patch: PondSettingsPatch): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  // Keys we no longer know are dropped on the next write rather than carried along forever.
  for (const key of POND_SETTING_KEYS) if (stored[key] !== undefined) merged[key] = stored[key];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged;
}
