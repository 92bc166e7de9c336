/**
 * The save path's derived data: everything read-mostly that comes from a page's document —
 * the HTML and Markdown caches, outline, plain text and word count (`page_contents`), the
 * outgoing wikilinks (`page_links`), the mentions (`page_mentions`) and the search vector —
 * rewritten together in one transaction.
 *
 * Rendering is pure CPU and runs before the transaction, so no lock is held meanwhile. The
 * writes are two statements: one takes the locks, one writes everything with set-based SQL
 * (arrays unnested on the server). All sub-statements of the second see the rows as they were
 * before it, which is what the Markdown and mention diffs compare against.
 *
 * Locks: the pond row `FOR SHARE`, then the page row. Tree changes hold the pond row
 * `FOR UPDATE` (api/ponds/pondLock.ts), so a save and the creation, rename, trash or restore
 * of a page in the same pond never interleave: a link written here sees the page a tree
 * change made, and the link resolution of a tree change sees the links written here. Saves
 * of different pages share the pond lock; saves of one page run one after the other.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { documentToHtml, documentToMarkdown, extract, type DocumentJson } from '../../content-pipeline/index.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { pageSearchVectorSql } from '../search/pageSearchIndex.ts';
import { transactionClient, type Queryable } from './documentLog.ts';

/** Carries `{pageId, pondId, authorIds, addedUserIds}` (JSON), delivered at commit. */
export const PAGE_MENTIONS_CHANGED_CHANNEL = 'page_mentions_changed';

export interface SaveDerivedDataInput {
  pageId: string;
  document: DocumentJson;
  /** Who edited since the last save, oldest first; the last one becomes `updated_by` on a change. */
  authorIds: readonly string[];
}

export interface SavedDerivedData {
  /** Whether the Markdown differs from the last save (a first save counts as a change). */
  changed: boolean;
  /** Users mentioned now who were not mentioned before. */
  addedMentionUserIds: string[];
}

type OutlineEntry = ReturnType<typeof extract>['outline'][number];

/** The render of one document: what the writes need, computed without the database. */
export interface RenderedDocument {
  html: string;
  markdown: string;
  outline: OutlineEntry[];
  plainText: string;
  wordCount: number;
  /** One per target slug, compared case-insensitively as slugs are; the first occurrence wins. */
  links: { targetSlug: string; snippet: string }[];
  /** Distinct user ids (lowercase uuids; anything else cannot name a user). */
  mentionIds: string[];
}

/** Postgres text cannot hold U+0000; a document carrying one must still save. */
function withoutNul(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '') : text;
}

export function renderDocument(document: DocumentJson): RenderedDocument {
  const extraction = extract(document);
  const seenSlugs = new Set<string>();
  const links = extraction.links.filter((link) => {
    const key = link.targetSlug.toLowerCase();
    if (key === '' || seenSlugs.has(key)) return false;
    seenSlugs.add(key);
    return true;
  }).map((link) => ({ targetSlug: link.targetSlug, snippet: withoutNul(link.snippet) }));
  const mentionIds = [...new Set(extraction.mentions.filter(isUuid).map((id) => id.toLowerCase()))];
  return {
    html: withoutNul(documentToHtml(document)),
    markdown: withoutNul(documentToMarkdown(document)),
    outline: extraction.outline.map((entry) => (entry.text.includes('\0') ? { ...entry, text: withoutNul(entry.text) } : entry)),
    plainText: withoutNul(extraction.text),
    wordCount: extraction.wordCount,
    links,
    mentionIds,
  };
}

const LOCK_SQL = `
  SELECT p.pond_id FROM pages p
   WHERE p.id = $1 AND EXISTS (SELECT 1 FROM ponds po WHERE po.id = p.pond_id FOR SHARE)
     FOR NO KEY UPDATE OF p`;

/*
 * $1 page id, $2 pond id, $3 html, $4 markdown, $5 outline (JSON), $6 plain text, $7 word count,
 * $8 link target slugs, $9 link snippets, $10 mentioned ids, $11 the last author (or null).
 * Links and mentions are upserted and the rest deleted, never deleted and re-inserted: two
 * sub-statements of one statement must not touch the same row. A link target resolves to the
 * live page of the pond with that slug (any case); a mention needs an existing user.
 */
const WRITE_SQL = `
  WITH previous AS (
    SELECT (SELECT markdown FROM page_contents WHERE page_id = $1) IS DISTINCT FROM $4 AS changed
  ),
  content AS (
    INSERT INTO page_contents (page_id, html, markdown, outline, plain_text, word_count, rendered_at)
    VALUES ($1, $3, $4, $5::jsonb, $6, $7, now())
    ON CONFLICT (page_id) DO UPDATE SET html = EXCLUDED.html, markdown = EXCLUDED.markdown, outline = EXCLUDED.outline,
      plain_text = EXCLUDED.plain_text, word_count = EXCLUDED.word_count, rendered_at = EXCLUDED.rendered_at
  ),
  dropped_links AS (
    DELETE FROM page_links WHERE source_page_id = $1 AND target_slug <> ALL ($8::text[])
  ),
  links AS (
    INSERT INTO page_links (source_page_id, pond_id, target_slug, target_page_id, snippet)
    SELECT $1, $2, l.target_slug, t.id, l.snippet
      FROM unnest($8::text[], $9::text[]) AS l (target_slug, snippet)
      LEFT JOIN pages t ON t.pond_id = $2 AND lower(t.slug) = lower(l.target_slug) AND t.trashed_at IS NULL
    ON CONFLICT (source_page_id, target_slug) DO UPDATE SET target_page_id = EXCLUDED.target_page_id, snippet = EXCLUDED.snippet
      WHERE (page_links.target_page_id, page_links.snippet) IS DISTINCT FROM (EXCLUDED.target_page_id, EXCLUDED.snippet)
  ),
  dropped_mentions AS (
    DELETE FROM page_mentions WHERE page_id = $1 AND user_id <> ALL ($10::uuid[])
  ),
  added_mentions AS (
    INSERT INTO page_mentions (page_id, user_id, pond_id)
    SELECT $1, u.id, $2 FROM users u WHERE u.id = ANY ($10::uuid[])
    ON CONFLICT (page_id, user_id) DO NOTHING
    RETURNING user_id
  ),
  page AS (
    UPDATE pages p SET
      search_vector = CASE WHEN p.trashed_at IS NULL AND (SELECT po.trashed_at FROM ponds po WHERE po.id = p.pond_id) IS NULL
                           THEN ${pageSearchVectorSql('p', '$6::text')} END,
      -- Never backwards: a page created in this transaction keeps its creation time.
      updated_at = CASE WHEN previous.changed THEN greatest(p.updated_at, now()) ELSE p.updated_at END,
      updated_by = CASE WHEN previous.changed AND EXISTS (SELECT 1 FROM users u WHERE u.id = $11::uuid) THEN $11::uuid ELSE p.updated_by END
      FROM previous
     WHERE p.id = $1
  )
  SELECT (SELECT changed FROM previous) AS changed, ARRAY(SELECT user_id::text FROM added_mentions) AS added`;

/** Writes a rendered document's derived data inside `transaction` (see the header for the locks). */
async function writeRendered(db: Queryable, input: { pageId: string; rendered: RenderedDocument; authorIds: readonly string[] }): Promise<SavedDerivedData> {
  const { pageId, rendered } = input;
  const locked = await db.query<{ pond_id: string }>(LOCK_SQL, [pageId]);
  const pondId = locked.rows[0]?.pond_id;
  // Purged meanwhile: nothing left to derive for.
  if (!pondId) return { changed: false, addedMentionUserIds: [] };
  const authorIds = input.authorIds.filter(isUuid);
  const { rows } = await db.query<{ changed: boolean; added: string[] }>(WRITE_SQL, [
    pageId,
    pondId,
    rendered.html,
    rendered.markdown,
    JSON.stringify(rendered.outline),
    rendered.plainText,
    rendered.wordCount,
    rendered.links.map((link) => link.targetSlug),
    rendered.links.map((link) => link.snippet),
    rendered.mentionIds,
    authorIds.at(-1) ?? null,
  ]);
  const { changed, added } = rows[0]!;
  if (added.length > 0) {
    const payload = { pageId, pondId, authorIds, addedUserIds: added };
    await db.query(`SELECT pg_notify($1, $2)`, [PAGE_MENTIONS_CHANGED_CHANNEL, JSON.stringify(payload)]);
  }
  return { changed, addedMentionUserIds: added };
}

/**
 * Writes an already rendered document's derived data, in `transaction` or in a transaction
 * of its own. For callers that render before taking locks of their own (page creation).
 */
export async function saveRenderedData(
  sequelize: Sequelize,
  input: { pageId: string; rendered: RenderedDocument; authorIds: readonly string[] },
  transaction?: Transaction,
): Promise<SavedDerivedData> {
  if (transaction) return writeRendered(transactionClient(transaction), input);
  return sequelize.transaction((own) => writeRendered(transactionClient(own), input));
}

/**
 * Renders the document with the content pipeline and rewrites the page's caches, outline,
 * links, mentions and search vector in one transaction (its own unless one is given). Newly
 * mentioned users are announced on `page_mentions_changed` at commit. A page that no longer
 * exists is left alone.
 */
export async function saveDerivedData(sequelize: Sequelize, input: SaveDerivedDataInput, transaction?: Transaction): Promise<SavedDerivedData> {
  const rendered = renderDocument(input.document);
  return saveRenderedData(sequelize, { pageId: input.pageId, rendered, authorIds: input.authorIds }, transaction);
}
