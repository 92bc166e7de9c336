/**
 * Who reads a feed and what they reach (spec: Feed rules). Without a token the reader is the
 * `public` subject; with `?token=` it is the token's owner, as far as the policy module lets
 * them read. Everything a reader cannot reach answers the same 404 as a pond or page that does
 * not exist: an invalid token, a pond with nothing public, a trashed pond or page, an
 * unreadable page. The policy module decides; this module never reads grants.
 */
import { Op, fn, col, where, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Page, Pond } from '../models/index.ts';
import { accessSubjectOf, subjectAccessTo, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { feedTokenSubject, findFeedTokenOwner } from './feedTokens.ts';

export interface FeedReader {
  subject: AccessSubject;
  /** The owner's language for a token feed, else the instance's default. */
  locale: Locale;
  viaToken: boolean;
}

/**
 * The reader a request's `token` query parameter names (absent: the public). Anything but one
 * valid token of a live account answers 404.
 */
export async function resolveFeedReader(sequelize: Sequelize, token: unknown): Promise<FeedReader> {
  const instanceLocale = await getSetting('instance.defaultLocale');
  if (token === undefined) return { subject: accessSubjectOf(null), locale: instanceLocale, viaToken: false };
  const owner = typeof token === 'string' ? await findFeedTokenOwner(sequelize, token) : null;
  if (!owner) throw notFound();
  return { subject: feedTokenSubject(owner), locale: owner.locale ?? instanceLocale, viaToken: true };
}

// Slugs are stored lowercase but compared as the unique indexes do (lower(slug)).
const slugIs = (slug: string) => where(fn('lower', col('slug')), slug.toLowerCase());
// Anything else cannot be a slug (api/ponds/slugs.ts) and is not sent to the database at all
// (a NUL would make Postgres refuse the statement).
const SLUG_SHAPE = /^[A-Za-z0-9-]{1,100}$/;

/** A live pond by slug (any case) with the reader's view of it; 404 when there is none. */
export async function findLivePond(sequelize: Sequelize, subject: AccessSubject, pondSlug: string): Promise<{ pond: Pond; access: SubjectAccess }> {
  if (!SLUG_SHAPE.test(pondSlug)) throw notFound();
  const pond = await Pond.findOne({ where: { trashedAt: null, [Op.and]: [slugIs(pondSlug)] } });
  const access = pond ? await subjectAccessTo(sequelize, subject, pond.id) : null;
  if (!pond || !access) throw notFound();
  return { pond, access };
}

/** A live page of the pond by slug that the reader may read; 404 otherwise. */
export async function findReadablePage(pond: Pond, access: SubjectAccess, pageSlug: string): Promise<Page> {
  if (!SLUG_SHAPE.test(pageSlug)) throw notFound();
  const page = await Page.findOne({ where: { pondId: pond.id, trashedAt: null, [Op.and]: [slugIs(pageSlug)] } });
  if (!page || !access.page(page, 'read').allowed) throw notFound();
  return page;
}
