/**
 * Pond slugs that would shadow a path of the site or the API (pond URLs live at the top
 * level). Given explicitly they are refused; derived from a name or username they are
 * skipped like a taken slug (`admin` → `admin-2`).
 */
import { slugSchema } from './slugs.ts';

export const RESERVED_POND_SLUGS: ReadonlySet<string> = new Set([
  'api', 'admin', 'login', 'logout', 'signup', 'setup', 'settings', 'legal', 'feeds', 'search',
  'assets', '_astro', 'media', 'files', 'trash', 'new', 'p', 'u', 'api-reference',
]);

export function isReservedPondSlug(slug: string): boolean {
  return RESERVED_POND_SLUGS.has(slug.toLowerCase());
}

/**
 * A slug a pond may be given: the slug rules, and not reserved. A reserved slug is an issue
 * `custom` on the field; routes answer it in the caller's language (i18n/fieldMessages.ts).
 */
export const pondSlugSchema = slugSchema.refine((slug) => !isReservedPondSlug(slug));
