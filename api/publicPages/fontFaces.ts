/**
 * The pond's fonts in a generated public document: `@font-face` rules for the catalog faces
 * that have files (the `@fontsource/*` packages, served from our own origin by
 * api/http/fontAssets.ts) and the `--font-body` / `--font-heading` / `--font-code` variables
 * the public layout's CSS reads. `system-*` ids need no files, only their stack.
 *
 * A font URL carries the package version (`/assets/fonts/inter/5.3.0/inter-latin-400-normal.woff2`),
 * so an updated package gets new URLs and the immutable caching of the old ones is harmless.
 * Everything here is read from the installed packages once and is the same on every call,
 * so a document's bytes never depend on anything but its fonts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DEFAULT_FONTS, FONT_CATALOG, FONT_SLOTS, type PondFonts } from '../ponds/fontCatalog.ts';

/** Catalog ids that are web fonts, and the package each one's files come from. */
const WEB_FONT_PACKAGES: Readonly<Record<string, string>> = Object.freeze({
  inter: '@fontsource/inter',
  'ibm-plex-sans': '@fontsource/ibm-plex-sans',
  'atkinson-hyperlegible': '@fontsource/atkinson-hyperlegible',
  'source-serif-4': '@fontsource/source-serif-4',
  'jetbrains-mono': '@fontsource/jetbrains-mono',
});

/** Latin-ext first, as the packages order them; `unicode-range` makes a browser load only what a page uses. */
const SUBSETS = ['latin-ext', 'latin'] as const;
/** Regular and bold, upright and italic: what body text, headings, `<strong>` and `<em>` need. */
const STYLES = [
  { weight: 400, style: 'normal' },
  { weight: 400, style: 'italic' },
  { weight: 700, style: 'normal' },
  { weight: 700, style: 'italic' },
] as const;

export const FONT_ASSET_PREFIX = '/assets/fonts/';

interface WebFontFace {
  family: string;
  weight: number;
  style: 'normal' | 'italic';
  unicodeRange: string;
  /** Path on our origin, under FONT_ASSET_PREFIX. */
  urlPath: string;
  /** The woff2 file in the installed package. */
  filePath: string;
}

const require = createRequire(import.meta.url);
const facesByFont = new Map<string, readonly WebFontFace[]>();

/** The faces of one web font, read from its package on first use; [] for a system font. */
function facesOf(fontId: string): readonly WebFontFace[] {
  const cached = facesByFont.get(fontId);
  if (cached) return cached;
  const packageName = WEB_FONT_PACKAGES[fontId];
  const catalogFont = FONT_CATALOG.find((font) => font.id === fontId);
  if (!packageName || !catalogFont) return [];
  const packageDir = path.dirname(require.resolve(`${packageName}/package.json`));
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const ranges = JSON.parse(readFileSync(path.join(packageDir, 'unicode.json'), 'utf8')) as Record<string, string>;
  const faces: WebFontFace[] = [];
  for (const { weight, style } of STYLES) {
    for (const subset of SUBSETS) {
      const unicodeRange = ranges[subset];
      if (!unicodeRange) throw new Error(`${packageName} has no ${subset} subset`);
      const fileName = `${fontId}-${subset}-${weight}-${style}.woff2`;
      faces.push({
        // The catalog's name is the family its stack asks for.
        family: catalogFont.name,
        weight,
        style,
        unicodeRange,
        urlPath: `${FONT_ASSET_PREFIX}${fontId}/${version}/${fileName}`,
        filePath: path.join(packageDir, 'files', fileName),
      });
    }
  }
  facesByFont.set(fontId, Object.freeze(faces));
  return faces;
}

/** Every font file we serve: URL path → file in the installed package (the allow-list of fontAssets.ts). */
export function webFontFiles(): ReadonlyMap<string, string> {
  const files = new Map<string, string>();
  for (const fontId of Object.keys(WEB_FONT_PACKAGES)) {
    for (const face of facesOf(fontId)) files.set(face.urlPath, face.filePath);
  }
  return files;
}

/** The catalog's stack for a slot; an id the catalog no longer has falls back to the slot's default. */
function stackFor(fontId: string, fallbackId: string): string {
  const font = FONT_CATALOG.find((entry) => entry.id === fontId) ?? FONT_CATALOG.find((entry) => entry.id === fallbackId);
  return font?.stack ?? 'sans-serif';
}

/** A family name as a CSS string; catalog names are plain, this keeps it so if one ever is not. */
function cssString(value: string): string {
  return `'${value.replace(/[\\'\n\r]/g, (character) => `\\${character.charCodeAt(0).toString(16)} `)}'`;
}

/** One line per face: a document carries up to 24 of them (three fonts, four styles, two subsets). */
function faceRule(face: WebFontFace): string {
  return (
    `@font-face{font-family:${cssString(face.family)};font-style:${face.style};font-weight:${face.weight};` +
    `font-display:swap;src:url(${face.urlPath}) format('woff2');unicode-range:${face.unicodeRange}}`
  );
}

const cssByFonts = new Map<string, string>();

/**
 * `@font-face` rules for the web fonts among `fonts` (each face once, even when two slots
 * share it) and `:root` variables with each slot's stack. Same fonts, same string.
 */
export function fontFaceCss(fonts: PondFonts): string {
  const key = FONT_SLOTS.map((slot) => fonts[slot]).join('|');
  const cached = cssByFonts.get(key);
  if (cached !== undefined) return cached;
  const rules: string[] = [];
  const seen = new Set<string>();
  for (const slot of FONT_SLOTS) {
    const fontId = fonts[slot];
    if (seen.has(fontId)) continue;
    seen.add(fontId);
    for (const face of facesOf(fontId)) rules.push(faceRule(face));
  }
  const variables = FONT_SLOTS.map((slot) => `--font-${slot}:${stackFor(fonts[slot], DEFAULT_FONTS[slot])}`);
  rules.push(`:root{${variables.join(';')}}`);
  const css = rules.join('\n');
  // Valid choices are a few hundred combinations; the bound only matters for ids from elsewhere.
  if (cssByFonts.size >= 1024) cssByFonts.clear();
  cssByFonts.set(key, css);
  return css;
}

/** A font's regular upright Latin face (family and URL), e.g. for a live sample in the app; null for a system font. */
export function sampleFace(fontId: string): { family: string; urlPath: string } | null {
  const face = facesOf(fontId).find((candidate) => candidate.weight === 400 && candidate.style === 'normal' && candidate.urlPath.includes('-latin-400-'));
  return face ? { family: face.family, urlPath: face.urlPath } : null;
}

/** The regular upright Latin face of the body font, worth a preload; null for a system font. */
export function bodyFontPreload(fonts: PondFonts): string | null {
  const face = facesOf(fonts.body).find((candidate) => candidate.weight === 400 && candidate.style === 'normal' && candidate.urlPath.includes('-latin-400-'));
  return face?.urlPath ?? null;
}
