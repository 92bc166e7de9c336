/**
 * A pond's recent-changes feed: the reader's readable live pages, most recently changed first,
 * one entry per page for its latest change. Readability is decided inside SQL by the policy
 * module's predicate (readablePagesSql.ts), before the LIMIT, so a pond with many unreadable
 * pages still fills the feed.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Pond } from '../models/index.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import { readableLivePagesSql, readablePagesLists, SqlParameters } from '../policies/readablePagesSql.ts';
import { feedUpdatedAt, type AtomEntry, type AtomFeed } from './atomXml.ts';
import { pageChangeEntryId, uuidUrn } from './entryIds.ts';
import { feedBodyHtml, summaryOf } from './feedContent.ts';
import { pageUrl, pondFeedUrl, pondUrl } from './feedUrls.ts';
import { displayNamesOf, FEED_GENERATOR } from './feedPeople.ts';

export const POND_FEED_LIMIT = 50;

interface ChangedPageRow {
  id: string;
  slug: string;
  title: string;
  created_at: Date;
  updated_at: Date;
  html: string | null;
  plain_text: string | null;
  /** The last editor first, then who edited since the last version, most recent first. */
  author_ids: (string | null)[];
}

export interface PondFeedInput {
  pond: Pond;
  access: SubjectAccess;
  baseUrl: string;
  locale: Locale;
  instanceName: string;
}

async function recentlyChangedPages(sequelize: Sequelize, pond: Pond, access: SubjectAccess): Promise<ChangedPageRow[]> {
  const parameters = new SqlParameters();
  const readable = readableLivePagesSql('p', readablePagesLists([access]), parameters);
  return sequelize.query<ChangedPageRow>(
    `SELECT p.id, p.slug, p.title, p.created_at, p.updated_at, c.html, c.plain_text,
            ARRAY[p.updated_by] || ARRAY(SELECT pc.user_id FROM page_contributors pc WHERE pc.page_id = p.id ORDER BY pc.last_edit_at DESC) AS author_ids
       FROM pages p
       LEFT JOIN page_contents c ON c.page_id = p.id
      WHERE p.pond_id = ${parameters.add(pond.id, 'uuid')} AND p.trashed_at IS NULL AND ${readable}
      ORDER BY p.updated_at DESC, p.id DESC
      LIMIT ${parameters.add(POND_FEED_LIMIT, 'int')}`,
    { bind: parameters.values, type: QueryTypes.SELECT },
  );
}

/**
 * The feed model; 404 when the reader may read nothing in the pond (no pond-level read and no
 * readable live page), the same answer as for a pond that does not exist.
 */
export async function buildPondFeed(sequelize: Sequelize, input: PondFeedInput): Promise<AtomFeed> {
  const { pond, access, baseUrl, locale } = input;
  const rows = await recentlyChangedPages(sequelize, pond, access);
  if (rows.length === 0 && !access.pond('read').allowed) throw notFound();
  const names = await displayNamesOf(sequelize, rows.flatMap((row) => row.author_ids));
  const entries: AtomEntry[] = rows.map((row) => ({
    id: pageChangeEntryId(row.id, row.updated_at),
    title: row.title,
    updated: row.updated_at,
    published: row.created_at,
    authors: names(row.author_ids),
    link: pageUrl(baseUrl, pond.slug, row.slug),
    summary: row.plain_text ? summaryOf(row.plain_text) : null,
    contentHtml: row.html ? feedBodyHtml(row.html) : null,
  }));
  return {
    id: uuidUrn(pond.id),
    title: pond.name,
    subtitle: apiText('feed.pond.subtitle', locale),
    updated: feedUpdatedAt(rows[0]?.updated_at, pond.updatedAt),
    selfUrl: pondFeedUrl(baseUrl, pond.slug),
    alternateUrl: pondUrl(baseUrl, pond.slug),
    language: locale,
    generator: FEED_GENERATOR,
    authors: [input.instanceName],
    entries,
  };
}
