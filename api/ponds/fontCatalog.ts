/**
 * The built-in font catalog a pond chooses from (spec: Pond, "font selection"). A pond stores
 * only catalog ids per slot; the site turns an id into its CSS stack. Body and heading take a
 * sans or serif face, code a monospace one. Every stack ends in a generic family, so a face
 * the browser cannot load still falls back to something of the right kind.
 */
import { z } from 'zod';

export type FontCategory = 'sans' | 'serif' | 'mono';
export type FontSlot = 'body' | 'heading' | 'code';

export interface CatalogFont {
  id: string;
  name: string;
  category: FontCategory;
  stack: string;
}

export const FONT_CATALOG: readonly CatalogFont[] = Object.freeze([
  { id: 'system-sans', name: 'System Sans', category: 'sans', stack: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
  { id: 'system-serif', name: 'System Serif', category: 'serif', stack: 'Charter, "Bitstream Charter", Cambria, Georgia, "Times New Roman", serif' },
  { id: 'system-mono', name: 'System Mono', category: 'mono', stack: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace' },
  { id: 'inter', name: 'Inter', category: 'sans', stack: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  { id: 'ibm-plex-sans', name: 'IBM Plex Sans', category: 'sans', stack: '"IBM Plex Sans", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  { id: 'atkinson-hyperlegible', name: 'Atkinson Hyperlegible', category: 'sans', stack: '"Atkinson Hyperlegible", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  { id: 'source-serif-4', name: 'Source Serif 4', category: 'serif', stack: '"Source Serif 4", "Source Serif Pro", Charter, Georgia, serif' },
  { id: 'jetbrains-mono', name: 'JetBrains Mono', category: 'mono', stack: '"JetBrains Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
]);

/** Which categories each slot accepts. */
export const SLOT_CATEGORIES: Readonly<Record<FontSlot, readonly FontCategory[]>> = Object.freeze({
  body: ['sans', 'serif'],
  heading: ['sans', 'serif'],
  code: ['mono'],
});

export const FONT_SLOTS = Object.keys(SLOT_CATEGORIES) as FontSlot[];

export type PondFonts = Record<FontSlot, string>;

export const DEFAULT_FONTS: Readonly<PondFonts> = Object.freeze({ body: 'system-sans', heading: 'system-sans', code: 'system-mono' });

function idsFor(slot: FontSlot): [string, ...string[]] {
  const ids = FONT_CATALOG.filter((font) => SLOT_CATEGORIES[slot].includes(font.category)).map((font) => font.id);
  return ids as [string, ...string[]];
}

/** The ids a slot accepts, as a zod enum (a bad id fails as `fonts.<slot>`). */
export function fontIdSchema(slot: FontSlot) {
  return z.enum(idsFor(slot));
}

/** Every slot, the stored choice when it is still in the catalog for that slot, else the default. */
export function withFontDefaults(stored: Readonly<Record<string, unknown>>): PondFonts {
  const fonts = { ...DEFAULT_FONTS };
  for (const slot of FONT_SLOTS) {
    const value = stored[slot];
    if (typeof value === 'string' && idsFor(slot).includes(value)) fonts[slot] = value;
  }
  return fonts;
}
