/**
 * The state `npm run bench:api` reads. Through the running API where the write path matters
 * for what is read: the setup wizard, the pond, and the measured page (5,000 words of
 * Markdown, created with `POST /ponds/:id/pages` so its Markdown cache, links and derived data
 * are what the API writes), nested under a short page so a read resolves a parent slug too.
 * In bulk with SQL where only the rows matter: the other pages of the 10,000 (1,000 at the
 * top, the rest below them, as bench:access seeds them), the member and their grants.
 *
 * The reader of every measured request is a member who is no pond admin: a pond-wide reader
 * allow and page denies on 10 % of the pages (leaves, so each deny hides exactly one page),
 * so the permission filter has work to do on every read and list. Their read-scope personal
 * access token (REST, MCP) and their session (the internal API) are the two credentials.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { createAccessToken } from '../../api/auth/accessTokens.ts';
import { hashPassword } from '../../api/auth/passwords.ts';
import { announceAccessChange } from '../../api/policies/pondAccessCache.ts';
import { setSetting } from '../../api/settings/instanceSettings.ts';
import { setPondSwitches } from '../../api/testing/publicApiFixtures.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { seededRandom } from '../seededRandom.ts';
import { completeSetup, expectStatus } from './uiSeed.ts';
import { wordPageMarkdown } from './wordPage.ts';

const MEMBER = { username: 'mara', password: 'a long enough password' };
/** As the API process's PASSWORD_HASH_COST (apiBenchServer.ts), so signing in does not rehash. */
const HASH_COST = 12;
const TOP_LEVEL_PAGES = 1_000;

export interface ApiBenchData {
  pond: { id: string; slug: string };
  /** The measured page, and the word count of its Markdown as the API hands it out. */
  page: { id: string; slug: string };
  pageCount: number;
  deniedPages: number;
  member: { id: string; cookie: string };
  token: { id: string; secret: string };
}

export async function seedApiBench(sequelize: Sequelize, origin: string, options: { words: number; pages: number; deniedShare: number }): Promise<ApiBenchData> {
  const select = <T extends object>(sql: string, bind: unknown[] = []) => sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const admin = await completeSetup(origin);
  const pond = (await expectStatus(admin.post('/ponds', { name: 'Werkteich' }), 201, 'POST /ponds')).body as { id: string; slug: string };
  const parent = (await expectStatus(admin.post(`/ponds/${pond.id}/pages`, { title: 'Handbuch', markdown: '# Handbuch\n\nWas im Teich lebt.\n' }), 201, 'POST /ponds/:id/pages')).body as { id: string };
  const page = (await expectStatus(admin.post(`/ponds/${pond.id}/pages`, { title: 'Der Dorfteich', parentId: parent.id, markdown: wordPageMarkdown(options.words) }), 201, 'POST /ponds/:id/pages'))
    .body as { id: string; slug: string };

  // The rest of the pages, numbered 1..n: the first 1,000 at the top (after the two above), every other below one of them.
  const bulk = options.pages - 2;
  await sequelize.query(
    `INSERT INTO pages (pond_id, slug, title, position, parent_id, created_at, updated_at)
     SELECT $1, 'seite-' || n, 'Seite ' || n, 'x' || lpad(n::text, 6, '0'), NULL, now() - ((20000 - n) || ' seconds')::interval, now() - ((20000 - n) || ' seconds')::interval
       FROM generate_series(1, $2) n`,
    { bind: [pond.id, TOP_LEVEL_PAGES] },
  );
  await sequelize.query(
    `WITH roots AS (SELECT id, row_number() OVER (ORDER BY position) AS r FROM pages WHERE pond_id = $1 AND slug LIKE 'seite-%')
     INSERT INTO pages (pond_id, slug, title, position, parent_id, created_at, updated_at)
     SELECT $1, 'seite-' || n, 'Seite ' || n, lpad(n::text, 6, '0'), roots.id, now() - ((20000 - n) || ' seconds')::interval, now() - ((20000 - n) || ' seconds')::interval
       FROM generate_series($2 + 1, $3) n JOIN roots ON roots.r = 1 + (n % $2)`,
    { bind: [pond.id, TOP_LEVEL_PAGES, bulk] },
  );

  const [member] = await select<{ id: string }>(
    `INSERT INTO users (username, email, display_name, status, password_hash, email_verified_at) VALUES ($1, $1 || '@example.org', 'Mara Member', 'ACTIVE', $2, now()) RETURNING id`,
    [MEMBER.username, await hashPassword(MEMBER.password, HASH_COST)],
  );
  const leaves = (await select<{ id: string }>(`SELECT id FROM pages WHERE pond_id = $1 AND slug LIKE 'seite-%' AND parent_id IS NOT NULL ORDER BY slug`, [pond.id])).map((row) => row.id);
  const random = seededRandom(20);
  const denied = Math.round(options.pages * options.deniedShare);
  for (let i = 0; i < denied; i += 1) {
    const j = i + Math.floor(random() * (leaves.length - i));
    [leaves[i], leaves[j]] = [leaves[j]!, leaves[i]!];
  }
  await sequelize.query(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) VALUES ($1, 'user', $2, 'reader', 'pond', 'allow')`, { bind: [pond.id, member!.id] });
  await sequelize.query(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_page_id, effect)
     SELECT $1, 'user', $2, 'reader', 'page', page_id, 'deny' FROM unnest($3::uuid[]) AS page_id`,
    { bind: [pond.id, member!.id, leaves.slice(0, denied)] },
  );
  // Grants written with SQL: tell the API process, whose access cache holds the pond since the pages were created.
  await sequelize.transaction((transaction) => announceAccessChange(pond.id, transaction));
  await sequelize.query('ANALYZE');

  // Both channels opened on the instance and on the pond, as an admin would in the UI.
  await sequelize.transaction(async (transaction) => {
    await setSetting('api.enabled', true, { actorId: null, transaction });
    await setSetting('mcp.enabled', true, { actorId: null, transaction });
  });
  await setPondSwitches(pond.id, { api: true, mcp: true });
  const { token, secret } = await sequelize.transaction((transaction) =>
    createAccessToken(sequelize, { userId: member!.id, name: 'bench', scope: 'read', expiresAt: null, pondId: null }, transaction),
  );
  const session = new TestClient(origin);
  await expectStatus(session.post('/auth/login', { login: MEMBER.username, password: MEMBER.password }), 200, 'POST /auth/login');
  if (!session.sessionCookie) throw new Error('signing in left no session cookie');
  return {
    pond,
    page: { id: page.id, slug: page.slug },
    pageCount: options.pages,
    deniedPages: denied,
    member: { id: member!.id, cookie: `dt_session=${session.sessionCookie}` },
    token: { id: token.id, secret },
  };
}
