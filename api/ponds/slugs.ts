/**
 * Slugs of ponds and pages: lowercase ASCII letters, digits and single hyphens. Derived
 * from a name or title when not given (German umlauts spelled out, other accents folded),
 * with `-<n>` appended on collision.
 */
import { z } from 'zod';

export const SLUG_MAX_LENGTH = 80;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const SPELLED_OUT: Record<string, string> = {
  ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'ae', Ö: 'oe', Ü: 'ue', ß: 'ss', ẞ: 'ss',
  æ: 'ae', Æ: 'ae', ø: 'o', Ø: 'o', œ: 'oe', Œ: 'oe', đ: 'd', Đ: 'd', ł: 'l', Ł: 'l', þ: 'th', Þ: 'th', ð: 'd', Ð: 'd', ı: 'i',
};

/** `"Über Größe & Maß"` → `"ueber-groesse-mass"`; empty when nothing usable is left. */
export function slugify(text: string): string {
  const spelled = text.replace(/[äöüÄÖÜßẞæÆøØœŒđĐłŁþÞðÐı]/g, (char) => SPELLED_OUT[char] ?? char);
  const folded = spelled.normalize('NFKD').replace(/\p{M}+/gu, '');
  const slug = folded
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return truncateSlug(slug);
}

function truncateSlug(slug: string, maxLength = SLUG_MAX_LENGTH): string {
  return slug.length <= maxLength ? slug : slug.slice(0, maxLength).replace(/-+$/g, '');
}

export const slugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(SLUG_MAX_LENGTH)
  .regex(SLUG_PATTERN, 'lowercase letters, digits and single hyphens');

/**
 * The first of `base`, `base-2`, `base-3` … that `taken` does not contain (compared
 * case-insensitively; `taken` holds lowercase slugs). The suffix never pushes a slug past the limit.
 */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${truncateSlug(base, SLUG_MAX_LENGTH - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
