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

/** A name without its spaces, as characters (so a letter outside the BMP counts once). */
const charactersOf = (displayName: string) => Array.from(displayName.replace(/\s+/g, ''));

/**
 * Initials for everyone shown at once, told apart: where several people share initials
 * ("User 13" and "User 14" are both "U1"), each gets their first letter and the first
 * character where the names differ ("U3", "U4"); failing that, the last one or two
 * characters; for names that are the same, a number. Everyone else keeps their initials.
 */
export function distinctInitials(displayNames: readonly string[]): string[] {
  const result = displayNames.map(initialsOf);
  const groups = new Map<string, number[]>();
  result.forEach((initials, index) => groups.set(initials, [...(groups.get(initials) ?? []), index]));
  for (const [initials, members] of groups) {
    if (members.length < 2) continue;
    const names = members.map((index) => charactersOf(displayNames[index]!));
    const longest = Math.max(...names.map((name) => name.length));
    let differing = 1;
    while (differing < longest && names.every((name) => name[differing] === names[0]![differing])) differing++;
    const candidates: ((name: string[]) => string)[] = [
      (name) => (name[0] ?? '') + (name[differing] ?? ''),
      (name) => (name[0] ?? '') + name.slice(-1).join(''),
      (name) => (name[0] ?? '') + name.slice(-2).join(''),
    ];
    const others = new Set(result.filter((_, index) => !members.includes(index)));
    const labels =
      candidates
        .map((candidate) => names.map((name) => candidate(name).toLocaleUpperCase()))
        .find((labels) => new Set(labels).size === labels.length && labels.every((label) => label.length > 1 && !others.has(label))) ??
      members.map((_, position) => `${initials}${position + 1}`);
    members.forEach((index, position) => (result[index] = labels[position]!));
  }
  return result;
}
