/**
 * `npm run bench:notify` — notifications at size. Each part runs on a scratch database of its
 * own, so one part's rows never weigh on another's (the digest reads every pending row).
 *
 * (a) Fan-out: a page with 1,000 watchers (600 on the page, 400 on its pond; 50 of them named
 *     by user grants, 20 of those denied the page, 50 disabled accounts), one `page_changed`
 *     by an actor through `notifyPageEvent`, against inserting the same rows with one
 *     `INSERT … SELECT` of the recipients' ids. Both start from no rows each run (the fan-out's
 *     rows are deleted between runs, untimed). Target: median ≤ 2× the insert. For information
 *     also the fold: the same event again, into the 950 unread rows.
 * (b) The digest job for 10,000 users with 100,000 pending notifications against a real SMTP
 *     server, timed against its 15-minute slot (notifyDigest.ts, also runnable alone).
 * (c) The list: `GET /notifications` through the real HTTP route and session for a user with
 *     10,000 notifications (1,000 unread, 9,000 read, over 2,000 pages in 4 ponds; 5 % of them
 *     on pages a deny grant hides now), the first page as the bell polls it and pages deep in
 *     the read part. Target: p95 ≤ 20 ms. Baseline: `GET /users/me`, the session's own cost.
 *
 * `BENCH_NOTIFY_PARTS=a,c` runs some parts only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createApp } from '../../api/app.ts';
import { hashPassword } from '../../api/auth/passwords.ts';
import { bootstrapServices } from '../../api/bootstrap.ts';
import { parseConfig } from '../../api/config.ts';
import { createLogger } from '../../api/logger.ts';
import { notifyPageEvent } from '../../api/notifications/notificationFanOut.ts';
import { listNotifications } from '../../api/notifications/notificationList.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { seededRandom } from '../seededRandom.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { digestBenchPart } from './notifyDigest.ts';
import { completeSetup, expectStatus } from './uiSeed.ts';

const FAN_OUT_RUNS = 25;
const FAN_OUT_TARGET_RATIO = 2;
const LIST_WARMUP = 30;
const LIST_RUNS = 300;
const LIST_P95_TARGET_MS = 20;

/** One part of the bench: its rows of the result table. */
export interface NotifyBenchPart {
  key: string;
  title: string;
  run(): Promise<Row[]>;
}

const random = seededRandom(19);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function select<T extends object>(sequelize: Sequelize, sql: string, bind: unknown[] = []): Promise<T[]> {
  return sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
}

/** `count` active users named `<prefix><n>`, their ids in order. */
async function seedUsers(sequelize: Sequelize, prefix: string, count: number): Promise<string[]> {
  const rows = await select<{ id: string }>(
    sequelize,
    `INSERT INTO users (username, email, display_name, status, password_hash, email_verified_at)
     SELECT $1 || i, $1 || i || '@example.org', initcap($1) || ' ' || i, 'ACTIVE', 'x', now() FROM generate_series(1, $2) AS i
     RETURNING id`,
    [prefix, count],
  );
  return rows.map((row) => row.id);
}

async function seedPond(sequelize: Sequelize, slug: string, ownerId: string): Promise<string> {
  const [pond] = await select<{ id: string }>(sequelize, `INSERT INTO ponds (slug, name, kind, owner_id) VALUES ($1, initcap($1), 'shared', $2) RETURNING id`, [slug, ownerId]);
  await sequelize.query(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) VALUES ($1, 'user', $2, 'pond_admin', 'pond', 'allow')`, { bind: [pond!.id, ownerId] });
  return pond!.id;
}

/** `count` top-level pages `<prefix>-<n>`, their ids in order. */
async function seedPages(sequelize: Sequelize, pondId: string, prefix: string, count: number): Promise<string[]> {
  const rows = await select<{ id: string }>(
    sequelize,
    `INSERT INTO pages (pond_id, slug, title, position)
     SELECT $1, $2 || '-' || i, initcap($2) || ' ' || i, 'a' || lpad(i::text, 6, '0') FROM generate_series(1, $3) AS i
     ORDER BY i RETURNING id`,
    [pondId, prefix, count],
  );
  return rows.map((row) => row.id);
}

const fanOut: NotifyBenchPart = {
  key: 'a',
  title: '(a) one change to a page with 1,000 watchers',
  async run() {
    const database = await openBenchDatabase();
    try {
      const { sequelize } = database;
      const [ownerId, actorId] = await seedUsers(sequelize, 'owner', 2);
      const watchers = await seedUsers(sequelize, 'watcher', 1_000);
      const pondId = await seedPond(sequelize, 'fanout', ownerId!);
      const [pageId] = await seedPages(sequelize, pondId, 'watched', 1);
      // Everyone signed in reads the pond; 50 watchers are named by grants, 20 of them denied this page.
      await sequelize.query(`INSERT INTO grants (pond_id, subject_type, role, scope_type, effect) VALUES ($1, 'signed-in', 'reader', 'pond', 'allow')`, { bind: [pondId] });
      await sequelize.query(
        `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_page_id, effect)
         SELECT $1, 'user', u, 'reader', CASE WHEN o <= 20 THEN 'page' ELSE 'pond' END, CASE WHEN o <= 20 THEN $2::uuid END, CASE WHEN o <= 20 THEN 'deny' ELSE 'allow' END
           FROM unnest($3::uuid[]) WITH ORDINALITY AS w (u, o)`,
        { bind: [pondId, pageId, watchers.slice(0, 50)] },
      );
      await sequelize.query(`UPDATE users SET status = 'disabled' WHERE id = ANY ($1::uuid[])`, { bind: [watchers.slice(950)] });
      await sequelize.query(
        `INSERT INTO watches (user_id, target_type, pond_id, page_id)
         SELECT u, CASE WHEN o <= 600 THEN 'page' ELSE 'pond' END, $1, CASE WHEN o <= 600 THEN $2::uuid END FROM unnest($3::uuid[]) WITH ORDINALITY AS w (u, o)`,
        { bind: [pondId, pageId, watchers] },
      );
      await sequelize.query('ANALYZE');

      const event = { type: 'page_changed' as const, pageId: pageId!, actorIds: [actorId!], versionLabel: 'Release 1' };
      const clear = () => sequelize.query(`DELETE FROM notifications`);
      // The recipients the fan-out picks, for the baseline to insert the very same rows.
      await notifyPageEvent(sequelize, event);
      const recipients = (await select<{ user_id: string }>(sequelize, `SELECT user_id FROM notifications ORDER BY user_id`)).map((row) => row.user_id);
      const [{ payload }] = (await select<{ payload: unknown }>(sequelize, `SELECT payload FROM notifications LIMIT 1`)) as [{ payload: unknown }];
      if (recipients.length !== 930) throw new Error(`the fan-out reached ${recipients.length} watchers, expected 930 (1,000 − 20 denied − 50 disabled)`);
      const insertSame = () =>
        sequelize.query(`INSERT INTO notifications (user_id, type, pond_id, page_id, payload) SELECT r, 'page_changed', $2, $3, $4::jsonb FROM unnest($1::uuid[]) AS r`, {
          bind: [recipients, pondId, pageId, JSON.stringify(payload)],
        });

      const samples = { fanOut: [] as number[], insert: [] as number[], fold: [] as number[] };
      for (let run = 0; run < FAN_OUT_RUNS + 3; run += 1) {
        const warm = run >= 3;
        await clear();
        const fanOutMs = await timed(() => notifyPageEvent(sequelize, event));
        const foldMs = await timed(() => notifyPageEvent(sequelize, event));
        await clear();
        const insertMs = await timed(insertSame);
        if (!warm) continue;
        samples.fanOut.push(fanOutMs);
        samples.fold.push(foldMs);
        samples.insert.push(insertMs);
      }
      const [folded] = await select<{ change_count: number }>(sequelize, `SELECT count(*)::int AS change_count FROM notifications`);
      if (folded!.change_count !== recipients.length) throw new Error('the baseline left other rows than expected');
      const baseline = median(samples.insert);
      const fanOutRatio = median(samples.fanOut) / baseline;
      return [
        {
          target: '(a) fan-out, 930 of 1,000 watchers',
          figure: ms(median(samples.fanOut)),
          baseline: ms(baseline),
          ratio: `${fanOutRatio.toFixed(2)}×`,
          goal: `≤ ${FAN_OUT_TARGET_RATIO}×`,
          met: fanOutRatio <= FAN_OUT_TARGET_RATIO,
        },
        { target: '(a) the same event folded (info)', figure: ms(median(samples.fold)), baseline: ms(baseline), ratio: `${(median(samples.fold) / baseline).toFixed(2)}×`, goal: '–', met: true },
      ];
    } finally {
      await database.close();
    }
  },
};

async function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** `BENCH_NOTIFY_EXPLAIN=1`: the plans of the list's two statements, as the first page runs them. */
async function explainList(sequelize: Sequelize, userId: string): Promise<void> {
  const statements = await captureStatements(sequelize, () => listNotifications(sequelize, { userId, signedIn: true, isSiteAdmin: false }));
  for (const { sql, bind } of statements) {
    const plan = await select<{ 'QUERY PLAN': string }>(sequelize, `EXPLAIN (ANALYZE, BUFFERS) ${sql}`, bind);
    console.log(plan.map((line) => line['QUERY PLAN']).join('\n'), '\n');
  }
}

/** The statements `work` sends through `sequelize.query` with bind parameters. */
async function captureStatements(sequelize: Sequelize, work: () => Promise<unknown>): Promise<{ sql: string; bind: unknown[] }[]> {
  const captured: { sql: string; bind: unknown[] }[] = [];
  const original = sequelize.query.bind(sequelize);
  (sequelize as { query: unknown }).query = (sql: string, options?: { bind?: unknown[] }) => {
    if (options?.bind && /notifications/.test(sql)) captured.push({ sql, bind: options.bind });
    return original(sql, options as never);
  };
  try {
    await work();
  } finally {
    (sequelize as { query: unknown }).query = original;
  }
  return captured;
}

const notificationList: NotifyBenchPart = {
  key: 'c',
  title: '(c) GET /notifications for a user with 10,000 notifications',
  async run() {
    const database = await openBenchDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-bench-notify-'));
    const server = createServer();
    const port = await listen(server);
    const baseUrl = `http://127.0.0.1:${port}`;
    const config = parseConfig({ PORT: String(port), BASE_URL: baseUrl, DATA_DIR: dataDir, DATABASE_URL: database.url, SESSION_SECRET: 'bench-session-secret-that-is-long-enough-0123456789', LOG_LEVEL: 'error', PASSWORD_HASH_COST: '12' });
    const services = await bootstrapServices(config, database.url, createLogger(config.logLevel));
    try {
      server.on('request', await createApp(services, { site: false }));
      const { sequelize } = services;
      await completeSetup(baseUrl);
      const password = 'a long enough password';
      const [reader] = await select<{ id: string }>(
        sequelize,
        `INSERT INTO users (username, email, display_name, status, password_hash, email_verified_at) VALUES ('reader', 'reader@example.org', 'Reader', 'ACTIVE', $1, now()) RETURNING id`,
        [await hashPassword(password, config.passwordHashCost)],
      );
      const [ownerId, ...actors] = await seedUsers(sequelize, 'actor', 13);
      const pages: { id: string; pondId: string }[] = [];
      for (let pond = 0; pond < 4; pond += 1) {
        const pondId = await seedPond(sequelize, `team-${pond}`, ownerId!);
        await sequelize.query(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) VALUES ($1, 'user', $2, 'reader', 'pond', 'allow')`, { bind: [pondId, reader!.id] });
        for (const id of await seedPages(sequelize, pondId, `page-${pond}`, 500)) pages.push({ id, pondId });
      }
      // 5 % of the pages hidden from the reader now: their rows stay, the list leaves them out.
      const hidden = pages.filter(() => random() < 0.05);
      await sequelize.query(
        `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_page_id, effect)
         SELECT p, 'user', $1, 'reader', 'page', g, 'deny' FROM unnest($2::uuid[], $3::uuid[]) AS h (g, p)`,
        { bind: [reader!.id, hidden.map((page) => page.id), hidden.map((page) => page.pondId)] },
      );
      // 10,000 rows over the last 60 days: every page has five; the newest 1,000 (one per page and type) unread.
      const rows = { pageIds: [] as string[], pondIds: [] as string[], types: [] as string[], minutes: [] as number[], unread: [] as boolean[] };
      const types = ['page_changed', 'comment', 'mentioned'];
      for (let index = 0; index < 10_000; index += 1) {
        const page = pages[index % pages.length]!;
        const unread = index < 1_000;
        rows.pageIds.push(page.id);
        rows.pondIds.push(page.pondId);
        rows.types.push(unread ? types[Math.floor(index / pages.length)]! : types[index % 3]!);
        rows.minutes.push(index * 8 + Math.floor(random() * 8));
        rows.unread.push(unread);
      }
      const actorsJson = JSON.stringify(actors.slice(0, 3).map((id, n) => ({ id, displayName: `Actor ${n + 2}` })));
      await sequelize.query(
        `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at, updated_at, read_at, mailed_at)
         SELECT $1, r.type, r.pond_id, r.page_id,
                jsonb_build_object('pondName', 'Team', 'pondSlug', 'team', 'pageTitle', 'Page', 'pageSlug', 'page', 'actors', $2::jsonb,
                                   'changeCount', 3, 'commentCount', 0, 'versionLabel', NULL),
                now() - make_interval(mins => r.minutes + 30), now() - make_interval(mins => r.minutes),
                CASE WHEN r.unread THEN NULL ELSE now() - make_interval(mins => r.minutes - 1) END,
                CASE WHEN r.unread THEN NULL ELSE now() - make_interval(mins => r.minutes - 1) END
           FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::boolean[]) AS r (page_id, pond_id, type, minutes, unread)`,
        { bind: [reader!.id, actorsJson, rows.pageIds, rows.pondIds, rows.types, rows.minutes, rows.unread] },
      );
      await sequelize.query('ANALYZE');

      const client = new TestClient(baseUrl);
      await expectStatus(client.post('/auth/login', { login: 'reader', password }), 200, 'POST /auth/login');
      const cookie = `dt_session=${client.sessionCookie}`;
      const get = async (url: string) => {
        const response = await fetch(`${baseUrl}/api/v1${url}`, { headers: { cookie } });
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
        return response.json() as Promise<{ items: unknown[]; nextCursor: string | null; unreadCount: number }>;
      };
      const first = await get('/notifications');
      const hiddenIds = new Set(hidden.map((page) => page.id));
      const expectedUnread = rows.unread.filter((unread, index) => unread && !hiddenIds.has(rows.pageIds[index]!)).length;
      if (first.unreadCount !== expectedUnread) throw new Error(`unreadCount ${first.unreadCount}, expected ${expectedUnread}`);
      // A cursor deep in the read part: walk 40 pages of 100 in.
      let deep = first.nextCursor;
      for (let page = 0; page < 40 && deep; page += 1) deep = (await get(`/notifications?limit=100&cursor=${deep}`)).nextCursor;
      const deepUrl = `/notifications?cursor=${deep}`;

      if (process.env.BENCH_NOTIFY_EXPLAIN) await explainList(sequelize, reader!.id);

      const subject = { userId: reader!.id, signedIn: true, isSiteAdmin: false };
      const samples = { first: [] as number[], deep: [] as number[], me: [] as number[], inProcess: [] as number[] };
      for (let run = 0; run < LIST_WARMUP + LIST_RUNS; run += 1) {
        const firstMs = await timed(() => get('/notifications'));
        const deepMs = await timed(() => get(deepUrl));
        const meMs = await timed(() => fetch(`${baseUrl}/api/v1/users/me`, { headers: { cookie } }).then((response) => response.arrayBuffer()));
        const inProcessMs = await timed(() => listNotifications(sequelize, subject));
        if (run < LIST_WARMUP) continue;
        samples.first.push(firstMs);
        samples.deep.push(deepMs);
        samples.me.push(meMs);
        samples.inProcess.push(inProcessMs);
      }
      const baseline = p95(samples.me);
      const row = (target: string, values: number[]): Row => ({
        target,
        figure: `p95 ${ms(p95(values))} (median ${ms(median(values))})`,
        baseline: `p95 ${ms(baseline)}`,
        ratio: `${(p95(values) / baseline).toFixed(2)}×`,
        goal: `p95 ≤ ${LIST_P95_TARGET_MS} ms`,
        met: p95(values) <= LIST_P95_TARGET_MS,
      });
      const info = (target: string, values: number[]): Row => ({ ...row(target, values), goal: '–', met: true });
      return [
        row('(c) first page (30), 10,000 notifications', samples.first),
        row('(c) a page 4,000 items deep', samples.deep),
        info('(c) the first page in process, no HTTP (info)', samples.inProcess),
        info('(c) GET /users/me (info)', samples.me),
      ];
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.sequelize.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

/** The parts in order; (b), the digest, lives in notifyDigest.ts. */
export const NOTIFY_BENCH_PARTS: NotifyBenchPart[] = [fanOut, digestBenchPart, notificationList];

const chosen = process.env.BENCH_NOTIFY_PARTS?.split(',').map((key) => key.trim());
const rows: Row[] = [];
for (const part of NOTIFY_BENCH_PARTS) {
  if (chosen && !chosen.includes(part.key)) continue;
  console.log(`${part.title} …`);
  rows.push(...(await part.run()));
}
console.log('');
printTable(rows);
