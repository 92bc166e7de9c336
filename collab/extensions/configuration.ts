/**
 * Each collab extension documents its configuration and merges what it is given over its
 * defaults, as Hocuspocus's own extensions do; a value given as `undefined` keeps the default
 * (the server passes its options through, set or not).
 */
export function withDefaults<Configuration extends object, Defaults extends Partial<Configuration>>(
  defaults: Defaults,
  given: Omit<Configuration, keyof Defaults> & Partial<Configuration>,
): Configuration {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) merged[key] = value;
  return merged as Configuration;
}
