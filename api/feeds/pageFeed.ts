/**
 * A page's version feed: its stored versions, newest first, each rendered from its own state.
 * A page without versions yet gives a valid feed without entries.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { listVersions, type VersionRecord, type VersionTrigger } from '../documents/versions.ts';
import { apiText, type ApiTextKey } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Page, Pond } from '../models/index.ts';
import { feedUpdatedAt, type AtomEntry, type AtomFeed } from './atomXml.ts';
import { uuidUrn } from './entryIds.ts';
import { cachedVersionBody, renderVersionBody, summaryOf, type RenderedBody } from './feedContent.ts';
import { FEED_GENERATOR } from './feedPeople.ts';
import { pageFeedUrl, pageUrl } from './feedUrls.ts';

export const PAGE_FEED_LIMIT = 50;

const TRIGGER_TITLES: Record<VersionTrigger, ApiTextKey> = {
  auto: 'feed.version.auto',
  MANUAL: 'feed.version.MANUAL',
  pre_restore: 'feed.version.pre_restore',
};

export interface PageFeedInput {
  pond: Pond;
  page: Page;
  baseUrl: string;
  locale: Locale;
  instanceName: string;
}

/** The bodies of `versions`: cached ones as they are, the others rendered from states loaded in one query. */
async function versionBodies(sequelize: Sequelize, versions: readonly VersionRecord[]): Promise<Map<string, RenderedBody>> {
  const bodies = new Map<string, RenderedBody>();
  const missing: string[] = [];
  for (const version of versions) {
    const cached = cachedVersionBody(version.id);
    if (cached) bodies.set(version.id, cached);
    else missing.push(version.id);
  }
  if (missing.length > 0) {
    const rows = await sequelize.query<{ id: string; state: Buffer }>(`SELECT id, state FROM page_versions WHERE id = ANY ($1::uuid[])`, {
      bind: [missing],
      type: QueryTypes.SELECT,
    });
    for (const row of rows) bodies.set(row.id, renderVersionBody(row.id, new Uint8Array(row.state.buffer, row.state.byteOffset, row.state.byteLength)));
  }
  return bodies;
}

/** Contributors by display name; a version nobody is recorded for names its creator, unless deleted. */
function versionAuthors(version: VersionRecord): string[] {
  if (version.contributors.length > 0) return [...new Set(version.contributors.map((person) => person.displayName))];
  return version.createdBy && version.createdBy.status !== 'deleted' ? [version.createdBy.displayName] : [];
}

export async function buildPageFeed(sequelize: Sequelize, input: PageFeedInput): Promise<AtomFeed> {
  const { pond, page, baseUrl, locale } = input;
  const { items: versions } = await listVersions(sequelize, page.id, { limit: PAGE_FEED_LIMIT });
  const bodies = await versionBodies(sequelize, versions);
  const link = pageUrl(baseUrl, pond.slug, page.slug);
  const entries: AtomEntry[] = versions.map((version) => {
    const body = bodies.get(version.id);
    return {
      id: uuidUrn(version.id),
      title: version.label ?? apiText(TRIGGER_TITLES[version.trigger], locale),
      updated: version.createdAt,
      published: version.createdAt,
      authors: versionAuthors(version),
      link,
      summary: body ? summaryOf(body.text) : null,
      contentHtml: body?.html || null,
    };
  });
  return {
    id: uuidUrn(page.id),
    title: page.title,
    subtitle: apiText('feed.page.subtitle', locale),
    updated: feedUpdatedAt(versions[0]?.createdAt, page.updatedAt),
    selfUrl: pageFeedUrl(baseUrl, pond.slug, page.slug),
    alternateUrl: link,
    language: locale,
    generator: FEED_GENERATOR,
    authors: [input.instanceName],
    entries,
  };
}
