/**
 * What the feed route tests share: a set-up instance with a pond owner (whose feed token the
 * tests use) and an outsider, pages made through the API, edits and versions as the
 * collaboration server writes them, and feed requests that return the raw answer.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import pg from 'pg';
import type { Pond } from '../models/index.ts';
import { seedGrant, seedSharedPond } from './accessFixtures.ts';
import { storeCollabEdit } from './collabEdit.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from './fixtures.ts';
import type { SignedIn } from './pondTestSetup.ts';
import type { TestClient } from './testClient.ts';
import { startTestInstance, type TestInstance } from './testInstance.ts';

export interface FeedCast {
  instance: TestInstance;
  admin: TestClient;
  /** Owns the seeded ponds; `token` is their feed token. */
  owner: SignedIn;
  token: string;
  outsider: SignedIn;
  pool: pg.Pool;
}

/** Call inside a `describe`: a fresh instance before, closed after; rate limits reset before each test. */
export function useFeedCast(): FeedCast {
  const cast = {} as FeedCast;
  before(async () => {
    cast.instance = await startTestInstance();
    cast.admin = await completeSetup(cast.instance);
    cast.owner = await createVerifiedUser(cast.instance, { locale: 'de' });
    await resetRateLimits(cast.instance);
    cast.outsider = await createVerifiedUser(cast.instance);
    const created = await cast.owner.client.post('/users/me/feed-token');
    assert.equal(created.status, 201, created.text);
    cast.token = created.body.token;
    cast.pool = new pg.Pool({ connectionString: cast.instance.services.config.databaseUrl!, max: 2 });
  });
  after(async () => {
    await cast.pool?.end();
    await cast.instance.close();
  });
  beforeEach(() => resetRateLimits(cast.instance));
  return cast;
}

/** A shared pond of the owner; `public` adds a pond-level public reader grant. */
export async function feedPond(cast: FeedCast, options: { name?: string; public?: boolean } = {}): Promise<Pond> {
  const pond = await seedSharedPond(cast.owner.user.id, options.name);
  if (options.public) await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
  return pond;
}

export interface CreatedPage {
  id: string;
  slug: string;
  title: string;
}

/** A page made by the owner through the API, with `markdown` as its body. */
export async function pageWith(cast: FeedCast, pond: Pond, title: string, markdown: string): Promise<CreatedPage> {
  const response = await cast.owner.client.post(`/ponds/${pond.id}/pages`, { title, markdown });
  assert.equal(response.status, 201, response.text);
  return { id: response.body.id, slug: response.body.slug, title: response.body.title };
}

/** An edit as the collaboration server stores it: updates appended to the log, then the save, by `authorIds`. */
export async function editPage(cast: FeedCast, pageId: string, markdown: string, authorIds: string[]): Promise<void> {
  await storeCollabEdit(cast.pool, cast.instance.services.sequelize, { pageId, markdown, authorIds });
  for (const userId of authorIds) {
    await cast.pool.query(`INSERT INTO page_contributors (page_id, user_id) VALUES ($1, $2) ON CONFLICT (page_id, user_id) DO UPDATE SET last_edit_at = now()`, [pageId, userId]);
  }
}

/** A manual version by the owner; its id. */
export async function versionOf(cast: FeedCast, pageId: string, label?: string): Promise<string> {
  const response = await cast.owner.client.post(`/pages/${pageId}/versions`, label === undefined ? {} : { label });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

export interface FeedAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** A feed request as a feed reader makes it: no cookie unless given, any extra headers. */
export async function fetchFeed(cast: FeedCast, path: string, options: { token?: string; headers?: Record<string, string>; method?: string } = {}): Promise<FeedAnswer> {
  const query = options.token === undefined ? '' : `?token=${encodeURIComponent(options.token)}`;
  const response = await fetch(new URL(`/api/v1/public/${path}${query}`, cast.instance.baseUrl), { method: options.method ?? 'GET', headers: options.headers ?? {} });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
