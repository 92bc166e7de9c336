/**
 * A collaborator's colour: one of a fixed palette, chosen by a hash of the user id, so the same
 * person has the same colour in every browser. Carets, selections and avatars use classes
 * (`presence-colour-<n>`, defined in PageEditor.svelte) because the CSP forbids inline styles.
 */
export const PRESENCE_COLOURS = 8;

export function presenceColourIndex(userId: string): number {
  let hash = 0;
  for (const character of userId) hash = (hash * 31 + character.codePointAt(0)!) >>> 0;
  return hash % PRESENCE_COLOURS;
}

/** Up to two initials of a display name ("Ada Lovelace" → "AL", "zora" → "Z"). */
export function initialsOf(displayName: string): string {
  const words = displayName.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((word) => Array.from(word)[0]!.toLocaleUpperCase()).join('') || '?';
}
