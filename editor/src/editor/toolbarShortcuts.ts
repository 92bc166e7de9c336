/**
 * The toolbar's keyboard shortcuts, written once as Tiptap writes them ("Mod-Shift-S", `Mod`
 * being Ctrl, or Command on Apple keyboards) and turned into what a tooltip shows ("Ctrl+Shift+S",
 * "Strg+Umschalt+S", "⌘⇧S") and what `aria-keyshortcuts` announces ("Control+Shift+S Meta+Shift+S").
 */
import type { Locale } from '../i18n/translator.ts';

/** The shortcuts the schema's extensions bind (StarterKit, lists, Collaboration's undo) and ours. */
export const TOOL_SHORTCUTS = {
  bold: 'Mod-B',
  italic: 'Mod-I',
  strike: 'Mod-Shift-S',
  code: 'Mod-E',
  link: 'Mod-K',
  heading1: 'Mod-Alt-1',
  heading2: 'Mod-Alt-2',
  heading3: 'Mod-Alt-3',
  bulletList: 'Mod-Shift-8',
  orderedList: 'Mod-Shift-7',
  taskList: 'Mod-Shift-9',
  blockquote: 'Mod-Shift-B',
  codeBlock: 'Mod-Alt-C',
  comment: 'Mod-Alt-M',
  undo: 'Mod-Z',
  redo: 'Mod-Shift-Z',
} as const;

const KEY_NAMES: Record<'apple' | Locale, Record<string, string>> = {
  apple: { Mod: '⌘', Alt: '⌥', Shift: '⇧' },
  en: { Mod: 'Ctrl', Alt: 'Alt', Shift: 'Shift' },
  de: { Mod: 'Strg', Alt: 'Alt', Shift: 'Umschalt' },
};

/** "Mod-Shift-S" as people read it: "Ctrl+Shift+S" (en), "Strg+Umschalt+S" (de), "⌘⇧S" (Apple). */
export function shortcutLabel(combo: string, locale: Locale, apple: boolean): string {
  const names = KEY_NAMES[apple ? 'apple' : locale];
  return combo
    .split('-')
    .map((key) => names[key] ?? key)
    .join(apple ? '' : '+');
}

/** "Mod-Shift-S" for `aria-keyshortcuts`: both Control and Meta, as the editor binds both. */
export function ariaKeyshortcuts(combo: string): string {
  const keys = combo.split('-');
  if (!keys.includes('Mod')) return keys.join('+');
  return ['Control', 'Meta'].map((mod) => keys.map((key) => (key === 'Mod' ? mod : key)).join('+')).join(' ');
}

/** Whether `Mod` means Command here (the browser's own report of its platform). */
export function onApplePlatform(navigatorLike: { platform?: string; userAgent?: string }): boolean {
  return /Mac|iPhone|iPad|iPod/.test(navigatorLike.platform || navigatorLike.userAgent || '');
}
