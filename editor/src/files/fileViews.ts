/**
 * What the editor and the attachments panel derive from a page's file as the API presents it:
 * whether it goes into the text as a picture or as a link, and its size in words. Pure, so the
 * rules are tested on their own.
 */
// The dialect module alone: the panels' island must not pull in the document schema.
import { MEDIA_PATH_PREFIX } from '../../../content-pipeline/browser.ts';
import type { FileView } from '../../../api/files/fileViews.ts';
import type { Locale } from '../i18n/translator.ts';

/** One file as `POST` and `GET /pages/:id/files` answer it (api/files/fileViews.ts). */
export type { FileView };

/**
 * Raster formats the browser shows by itself. SVG is not among them: it could carry script, so
 * an SVG upload becomes a link like any other file.
 */
export const RASTER_IMAGE_EXTENSIONS: readonly string[] = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif'];

export function showsAsImage(file: Pick<FileView, 'extension'>): boolean {
  return RASTER_IMAGE_EXTENSIONS.includes(file.extension.toLowerCase());
}

/** The address the text uses for a file; derived from the id, as the content pipeline does. */
export function mediaHref(fileId: string): string {
  return `${MEDIA_PATH_PREFIX}${encodeURIComponent(fileId)}`;
}

/** The name without its extension: what an inserted picture says until someone describes it. */
export function nameWithoutExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** `1536` → `1.5 KB` (`1,5 KB` in German): steps of 1024, one decimal below 10 of a unit. */
export function sizeInWords(bytes: number, locale: Locale): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit > 0 && value < 10 ? 1 : 0;
  const number = new Intl.NumberFormat(locale === 'de' ? 'de-DE' : 'en-US', { maximumFractionDigits: digits }).format(value);
  return `${number} ${UNITS[unit]}`;
}
