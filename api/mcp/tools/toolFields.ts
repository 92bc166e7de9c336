/**
 * The input fields the MCP tools share. Every text field is a `storableString` (no NUL, no lone
 * surrogates), so text Postgres would refuse is turned back by the SDK's schema check as a
 * validation error naming the field, before any tool runs. The `.describe()` texts are what an
 * agent reads in `tools/list`.
 */
import { storableString } from '../../http/fieldSchemas.ts';
import { PAGE_MARKDOWN_MAX_LENGTH, PAGE_TITLE_MAX_LENGTH } from '../../routes/pageRoutes.ts';

/** Slugs are at most 80 characters; a little slack keeps an over-long one a clean 404 instead of a schema error. */
const SLUG_FIELD_MAX = 200;

export const pondField = storableString().min(1).max(SLUG_FIELD_MAX).describe("The pond's slug, as list_ponds returns it");
export const pageField = storableString().min(1).max(SLUG_FIELD_MAX).describe("The page's slug, as list_pages or search return it");
export const parentSlugField = storableString().min(1).max(SLUG_FIELD_MAX);
export const titleField = storableString().trim().min(1).max(PAGE_TITLE_MAX_LENGTH);
export const markdownField = storableString().max(PAGE_MARKDOWN_MAX_LENGTH);
