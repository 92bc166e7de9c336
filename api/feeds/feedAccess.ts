/**
 * Who reads a feed and what they reach (spec: Feed rules). Without a token the reader is the
 * `public` subject; with `?token=` it is the token's owner, as far as the policy module lets
 * them read. Everything a reader cannot reach answers the same 404 as a pond or page that does
 * not exist: an invalid token, a pond with nothing public, a trashed pond or page, an
 * unreadable page. The policy module decides; this module never reads grants.
 */
import type { Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { accessSubjectOf, type AccessSubject } from '../policies/accessPolicy.ts';
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
