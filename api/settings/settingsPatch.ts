/**
 * The request schema of a PATCH of keyed settings (instance settings, a pond's settings): an
 * object of known keys to values, `null` resetting a key to its default. A key we do not
 * know, or one the caller may not change, is not a malformed field but a refusal with its
 * own code, naming every such key: 400 `unknown_setting` / `setting_locked`. A bad value is
 * 400 `validation_failed` naming the key, like any other field.
 */
import { z } from 'zod';
import { ApiError } from '../http/apiError.ts';

/** Each key's value as the patch carries it: the value, or null for "back to the default". */
type PatchOf<Schemas extends Record<string, z.ZodType>> = { [K in keyof Schemas]?: z.output<Schemas[K]> | null };

export function settingsPatchSchema<Schemas extends Record<string, z.ZodType>>(
  schemas: Schemas,
  options: { lockedKeys?: readonly (keyof Schemas & string)[] } = {},
): z.ZodType<PatchOf<Schemas>> {
  const known = new Set(Object.keys(schemas));
  const locked = new Set<string>(options.lockedKeys ?? []);
  const values = z.strictObject(Object.fromEntries(Object.entries(schemas).map(([key, schema]) => [key, schema.nullable().optional()])));
  return z
    .record(z.string(), z.unknown())
    .superRefine((patch) => {
      // Thrown, not reported as an issue: the route table turns issues into `validation_failed`.
      const unknownKeys = Object.keys(patch).filter((key) => !known.has(key));
      if (unknownKeys.length > 0) throw new ApiError('unknown_setting', 400, { keys: unknownKeys });
      const lockedKeys = Object.keys(patch).filter((key) => locked.has(key));
      if (lockedKeys.length > 0) throw new ApiError('setting_locked', 400, { keys: lockedKeys });
    })
    .pipe(values) as unknown as z.ZodType<PatchOf<Schemas>>;
}
