/**
 * The save path's derived data: everything read-mostly that comes from a page's document —
 * the HTML and Markdown caches, outline, plain text and word count (`page_contents`), the
 * outgoing wikilinks (`page_links`), the mentions (`page_mentions`) and the search vector —
 * rewritten together in one transaction.
 *
 * The Postgres work overlaps the rendering (issue 6, benchmark (e): a 5,000-word page saves in
 * ≤ 30 ms). The extraction (cheap) runs first, before the transaction. Then three statements:
 * 1. the locks;
 * 2. sent right behind the locks, before the Markdown and HTML are rendered: the search
 *    vector (Postgres's most expensive part, computed on its own CPU while this process
 *    renders), the links and the mentions — everything that needs only the extraction;
 * 3. once rendered: the caches, `changed` against the previous Markdown, and `updated_at` /
 *    `updated_by` when it changed.
 * So the page row stays locked while the Markdown and HTML are rendered (a few milliseconds);
 * a page purged before the locks is neither rendered nor written. Statements 2 and 3 each use
 * set-based SQL (arrays unnested on the server); all sub-statements of one statement see the
 * rows as they were before it, which is what the Markdown and mention diffs compare against.
 *
 * Locks: the pond row `FOR SHARE`, then the page row. Tree changes hold the pond row
 * `FOR UPDATE` (api/ponds/pondLock.ts), so a save and the creation, rename, trash or restore
 * of a page in the same pond never interleave: a link written here sees the page a tree
 * change made (statement 2 takes its snapshot after the locks), and the link resolution of a
 * tree change sees the links written here. Saves of different pages share the pond lock;
 * saves of one page run one after the other.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { documentToHtml, documentToMarkdown, extract, type DocumentJson } from '../../content-pipeline/index.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { pageSearchVectorsAssignment, registerLexemesSql } from '../search/pageSearchIndex.ts';
import { queuePublicChanges } from '../publicPages/publicDocumentQueue.ts';
import { transactionClient, type Queryable } from './documentLog.ts';

/** Carries `{pageId, pondId, authorIds, addedUserIds}` (JSON), delivered at commit. */
export const PAGE_MENTIONS_CHANGED_CHANNEL = 'page_mentions_changed';
/** 100 ids take about 3,900 bytes of JSON, leaving room for the authors. */
const MENTIONS_PER_ANNOUNCEMENT = 100;

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
  /** Distinct transclusion target slugs, lowercased (the public layer's dependency index). */
  transclusionSlugs: string[];
  /** Distinct uploaded file ids the document references (lowercase uuids): claims and the embedded flag. */
  fileIds: string[];
}

/** Postgres text cannot hold U+0000; a document carrying one must still save. */
function withoutNul(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '') : text;
}

/** What the extraction gives: everything but the two renders. */
type ExtractedDocument = Omit<RenderedDocument, 'html' | 'markdown'>;
type Renders = Pick<RenderedDocument, 'html' | 'markdown'>;

function extractDocument(document: DocumentJson): ExtractedDocument {
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
    outline: extraction.outline.map((entry) => (entry.text.includes('\0') ? { ...entry, text: withoutNul(entry.text) } : entry)),
    plainText: withoutNul(extraction.text),
    wordCount: extraction.wordCount,
    links,
    mentionIds,
    transclusionSlugs: [...new Set(extraction.transclusions.map((slug) => withoutNul(slug).toLowerCase()).filter((slug) => slug !== ''))],
    fileIds: extraction.fileIds,
  };
}

function renderHtmlAndMarkdown(document: DocumentJson): Renders {
  return { html: withoutNul(documentToHtml(document)), markdown: withoutNul(documentToMarkdown(document)) };
}

export function renderDocument(document: DocumentJson): RenderedDocument {
  return { ...extractDocument(document), ...renderHtmlAndMarkdown(document) };
}

const LOCK_SQL = `
  SELECT p.pond_id FROM pages p
   WHERE p.id = $1 AND EXISTS (SELECT 1 FROM ponds po WHERE po.id = p.pond_id FOR SHARE)
     FOR NO KEY UPDATE OF p`;

/*
 * Statement 2, sent before the result of the locks is known: for a page that is gone it writes
 * nothing (`target` is empty). $1 page id, $2 plain text, $3 link target slugs, $4 link
 * snippets, $5 mentioned ids, $6 transclusion target slugs (lowercased), $7 referenced file
 * ids. Uploads to this page that the document references are claimed by it, and each of its
 * files learns whether the document still references it (`embedded`). Links and mentions are upserted and the rest deleted, never
 * deleted and re-inserted: two sub-statements of one statement must not touch the same row. A
 * link target resolves to the live page of the pond with that slug (any case); a mention
 * needs an existing user.
 */
const EXTRACTION_SQL = `
  WITH target AS (
    SELECT p.id, p.pond_id FROM pages p WHERE p.id = $1
  ),
  dropped_links AS (
    DELETE FROM page_links WHERE source_page_id = $1 AND target_slug <> ALL ($3::text[])
  ),
  links AS (
    INSERT INTO page_links (source_page_id, pond_id, target_slug, target_page_id, snippet)
    SELECT target.id, target.pond_id, l.target_slug, t.id, l.snippet
      FROM target CROSS JOIN unnest($3::text[], $4::text[]) AS l (target_slug, snippet)
      LEFT JOIN pages t ON t.pond_id = target.pond_id AND lower(t.slug) = lower(l.target_slug) AND t.trashed_at IS NULL
    ON CONFLICT (source_page_id, target_slug) DO UPDATE SET target_page_id = EXCLUDED.target_page_id, snippet = EXCLUDED.snippet
      WHERE (page_links.target_page_id, page_links.snippet) IS DISTINCT FROM (EXCLUDED.target_page_id, EXCLUDED.snippet)
  ),
  dropped_transclusions AS (
    DELETE FROM page_transclusions WHERE source_page_id = $1 AND target_slug <> ALL ($6::text[])
  ),
  transclusions AS (
    INSERT INTO page_transclusions (source_page_id, pond_id, target_slug)
    SELECT target.id, target.pond_id, t.slug FROM target CROSS JOIN unnest($6::text[]) AS t (slug)
    ON CONFLICT DO NOTHING
  ),
  claimed_files AS (
    UPDATE files f SET page_id = target.id, embedded = (f.id = ANY ($7::uuid[]))
      FROM target
     WHERE f.pond_id = target.pond_id
       AND (f.page_id = target.id OR (f.page_id IS NULL AND f.upload_page_id = target.id AND f.id = ANY ($7::uuid[])))
       AND (f.page_id IS NULL OR f.embedded IS DISTINCT FROM (f.id = ANY ($7::uuid[])))
  ),
  dropped_mentions AS (
    DELETE FROM page_mentions WHERE page_id = $1 AND user_id <> ALL ($5::uuid[])
  ),
  added_mentions AS (
    INSERT INTO page_mentions (page_id, user_id, pond_id)
    SELECT target.id, u.id, target.pond_id FROM target CROSS JOIN users u WHERE u.id = ANY ($5::uuid[])
    ON CONFLICT (page_id, user_id) DO NOTHING
    RETURNING user_id
  ),
  indexed AS (
    UPDATE pages p SET ${pageSearchVectorsAssignment('p', '$2::text')}
      WHERE p.id = $1 AND p.trashed_at IS NULL AND (SELECT po.trashed_at FROM ponds po WHERE po.id = p.pond_id) IS NULL
      RETURNING p.search_vector AS vector
  ),
  lexicon AS (
    ${registerLexemesSql('indexed')}
  )
  SELECT ARRAY(SELECT user_id::text FROM added_mentions) AS added`;

/*
 * Statement 3: $1 page id, $2 html, $3 markdown, $4 outline (JSON), $5 plain text, $6 word
 * count, $7 the last author (or null).
 */
const CONTENT_SQL = `
  WITH previous AS (
    SELECT (SELECT markdown FROM page_contents WHERE page_id = $1) IS DISTINCT FROM $3 AS changed
  ),
  content AS (
    INSERT INTO page_contents (page_id, html, markdown, outline, plain_text, word_count, rendered_at)
    VALUES ($1, $2, $3, $4::jsonb, $5, $6, now())
    ON CONFLICT (page_id) DO UPDATE SET html = EXCLUDED.html, markdown = EXCLUDED.markdown, outline = EXCLUDED.outline,
      plain_text = EXCLUDED.plain_text, word_count = EXCLUDED.word_count, rendered_at = EXCLUDED.rendered_at
  ),
  page AS (
    UPDATE pages p SET
      -- Never backwards: a page created in this transaction keeps its creation time.
      updated_at = greatest(p.updated_at, now()),
      updated_by = CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.id = $7::uuid) THEN $7::uuid ELSE p.updated_by END
      FROM previous
     WHERE p.id = $1 AND previous.changed
  )
  SELECT changed FROM previous`;

/**
 * Writes a document's derived data inside the transaction of `db` (see the header for the
 * statements and the locks); `render` runs while Postgres works on statement 2.
 */
async function writeDerived(
  db: Queryable,
  input: { pageId: string; extracted: ExtractedDocument; authorIds: readonly string[] },
  render: () => Renders,
): Promise<SavedDerivedData> {
  const { pageId, extracted } = input;
  const locked = db.query<{ pond_id: string }>(LOCK_SQL, [pageId]);
  const written = db.query<{ added: string[] }>(EXTRACTION_SQL, [
    pageId,
    extracted.plainText,
    extracted.links.map((link) => link.targetSlug),
    extracted.links.map((link) => link.snippet),
    extracted.mentionIds,
    extracted.transclusionSlugs,
    extracted.fileIds,
  ]);
  // Statement 2 fails with the locks if they fail; that error is the one reported.
  written.catch(() => undefined);
  // By the time the locks' result arrives, statement 2 is on its way (the client sends the
  // next queued statement as soon as the previous one completes).
  const pondId = (await locked).rows[0]?.pond_id;
  // Purged meanwhile: nothing left to derive for (statement 2 wrote nothing).
  if (!pondId) {
    await written;
    return { changed: false, addedMentionUserIds: [] };
  }
  const { html, markdown } = render();
  const { added } = (await written).rows[0]!;
  const authorIds = input.authorIds.filter(isUuid);
  const { rows } = await db.query<{ changed: boolean }>(CONTENT_SQL, [
    pageId,
    html,
    markdown,
    JSON.stringify(extracted.outline),
    extracted.plainText,
    extracted.wordCount,
    authorIds.at(-1) ?? null,
  ]);
  // Public documents showing this page are regenerated by the worker (api/publicPages/).
  if (rows[0]!.changed) await queuePublicChanges(db, [{ pondId, pageId }]);
  // A NOTIFY payload holds less than 8,000 bytes: many new mentions go out in several announcements.
  for (let start = 0; start < added.length; start += MENTIONS_PER_ANNOUNCEMENT) {
    const payload = { pageId, pondId, authorIds, addedUserIds: added.slice(start, start + MENTIONS_PER_ANNOUNCEMENT) };
    await db.query(`SELECT pg_notify($1, $2)`, [PAGE_MENTIONS_CHANGED_CHANNEL, JSON.stringify(payload)]);
  }
  return { changed: rows[0]!.changed, addedMentionUserIds: added };
}

function inTransaction(sequelize: Sequelize, transaction: Transaction | undefined, work: (db: Queryable) => Promise<SavedDerivedData>): Promise<SavedDerivedData> {
  if (transaction) return work(transactionClient(transaction));
  return sequelize.transaction((own) => work(transactionClient(own)));
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
  const { html, markdown, ...extracted } = input.rendered;
  return inTransaction(sequelize, transaction, (db) => writeDerived(db, { pageId: input.pageId, extracted, authorIds: input.authorIds }, () => ({ html, markdown })));
}

/**
 * Renders the document with the content pipeline and rewrites the page's caches, outline,
 * links, mentions and search vector in one transaction (its own unless one is given). Newly
 * mentioned users are announced on `page_mentions_changed` at commit. A page that no longer
 * exists is left alone.
 */
export async function saveDerivedData(sequelize: Sequelize, input: SaveDerivedDataInput, transaction?: Transaction): Promise<SavedDerivedData> {
  const extracted = extractDocument(input.document);
  return inTransaction(sequelize, transaction, (db) =>
    writeDerived(db, { pageId: input.pageId, extracted, authorIds: input.authorIds }, () => renderHtmlAndMarkdown(input.document)),
  );
}
