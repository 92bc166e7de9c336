/**
 * `npm run bench:notify`, part (b) — the notification digest at size; also runnable alone
 * (`node scripts/bench/notifyDigest.ts`).
 *
 * 10,000 active users (half German, half English, hourly digests), 20 ponds of 250 pages, each
 * user a reader of two ponds, and 100,000 pending notifications two hours old: ten per user on
 * distinct pages of their ponds (changes, comments and mentions with actors, counts, a version
 * label or a comment excerpt), except that every tenth user has one on a page of a pond they
 * cannot read (dropped, still marked). One digest run (`runNotificationDigest`, the job's
 * whole work) against a real SMTP server (smtp-server on 127.0.0.1 in a process of its own,
 * accepting and counting),
 * timed against the job's 15-minute slot. Target: ≤ 0.1× the slot (90 s), so a run never
 * overlaps the next one even on a slower relay. The database is durable (fsync on), as in production.
 */
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { QueryTypes, type Sequelize } from 'sequelize';
import { SMTPServer } from 'smtp-server';
import { createLogger } from '../../api/logger.ts';
import { Mailer } from '../../api/mail/mailer.ts';
import { runNotificationDigest } from '../../api/notifications/notificationDigest.ts';
import { setSetting } from '../../api/settings/instanceSettings.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import type { NotifyBenchPart } from './notify.ts';

const USERS = 10_000;
const PONDS = 20;
const PAGES_PER_POND = 250;
const PER_USER = 10;
const SLOT_MS = 15 * 60_000;
const TARGET_SLOT_SHARE = 0.1;
const BASE_URL = 'https://teich.example.org';
const SINK_ARGUMENT = '--smtp-sink';

interface SinkReport {
  mails: number;
  bytes: number;
  first: string | null;
}

interface SmtpSink {
  port: number;
  received: () => Promise<SinkReport>;
  close: () => Promise<void>;
}

/**
 * The relay: a real SMTP server in a process of its own, as a relay is, so its work does not
 * slow the digest's process down. It takes every mail and keeps counts (and the first mail, to check).
 */
async function startSmtpSink(): Promise<SmtpSink> {
  const child = fork(fileURLToPath(import.meta.url), [SINK_ARGUMENT], { stdio: 'inherit' });
  const next = <T>() => new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('error', reject);
  });
  const { port } = await next<{ port: number }>();
  return {
    port,
    received: () => {
      const report = next<SinkReport>();
      child.send('report');
      return report;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('close');
      await exited;
    },
  };
}

/** The sink process's side: listens, reports its port, answers `report`, ends on `close`. */
async function runSmtpSink(): Promise<void> {
  let mails = 0;
  let bytes = 0;
  let first: string | null = null;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (first === null) chunks.push(chunk);
      });
      stream.on('end', () => {
        mails += 1;
        first ??= Buffer.concat(chunks).toString('utf8');
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message) => {
    if (message === 'report') process.send!({ mails, bytes, first } satisfies SinkReport);
    if (message === 'close') server.close(() => process.exit(0));
  });
  process.send!({ port: (server.server.address() as AddressInfo).port });
}

async function seed(sequelize: Sequelize): Promise<void> {
  const run = (sql: string, bind: unknown[] = []) => sequelize.query(sql, { bind });
  await run(
    `INSERT INTO users (username, email, display_name, status, password_hash, email_verified_at, locale)
     SELECT 'reader' || i, 'reader' || i || '@example.org', 'Reader ' || i, 'ACTIVE', 'x', now(), CASE WHEN i % 2 = 0 THEN 'de' ELSE 'en' END
       FROM generate_series(1, $1) AS i`,
    [USERS],
  );
  await run(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('owner', 'owner@example.org', 'Owner', 'ACTIVE', 'x')`);
  await run(
    `INSERT INTO ponds (slug, name, kind, owner_id)
     SELECT 'pond-' || p, 'Pond ' || p, 'shared', (SELECT id FROM users WHERE username = 'owner') FROM generate_series(0, $1 - 1) AS p`,
    [PONDS],
  );
  await run(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) SELECT id, 'user', owner_id, 'pond_admin', 'pond', 'allow' FROM ponds`);
  await run(
    `INSERT INTO pages (pond_id, slug, title, position)
     SELECT o.id, 'page-' || i, 'Page ' || i || ' of ' || o.name, 'a' || lpad(i::text, 6, '0') FROM ponds o, generate_series(0, $1 - 1) AS i`,
    [PAGES_PER_POND],
  );
  // Reader i belongs to ponds i % 20 and (i + 7) % 20.
  await run(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect)
     SELECT o.id, 'user', u.id, 'reader', 'pond', 'allow'
       FROM users u CROSS JOIN LATERAL (VALUES (substr(u.username, 7)::int % $1), ((substr(u.username, 7)::int + 7) % $1)) AS m (p)
       JOIN ponds o ON o.slug = 'pond-' || m.p
      WHERE u.username LIKE 'reader%'`,
    [PONDS],
  );
  // Ten per reader, k = 1..10: odd k in the first pond, even in the second, on distinct pages;
  // every tenth reader's tenth in a pond they are not in (5 further on).
  await run(
    `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at, updated_at)
     SELECT u.id, t.type, pg.pond_id, pg.id,
            jsonb_build_object('pondName', o.name, 'pondSlug', o.slug, 'pageTitle', pg.title, 'pageSlug', pg.slug,
              'actors', jsonb_build_array(jsonb_build_object('id', u.id, 'displayName', 'Ada Lovelace'), jsonb_build_object('id', u.id, 'displayName', 'Grace Hopper')),
              'changeCount', CASE WHEN t.type = 'page_changed' THEN 1 + k % 4 ELSE 0 END,
              'commentCount', CASE WHEN t.type = 'comment' THEN 1 + k % 3 ELSE 0 END,
              'versionLabel', CASE WHEN t.type = 'page_changed' AND k % 2 = 1 THEN 'Release ' || k END,
              'commentExcerpt', CASE WHEN t.type = 'comment' THEN 'Looks good to me, but the second table needs another column for the totals.' END),
            now() - interval '2 hours', now() - interval '2 hours'
       FROM users u
       CROSS JOIN generate_series(1, $1) AS k
       CROSS JOIN LATERAL (SELECT substr(u.username, 7)::int AS i) AS n
       CROSS JOIN LATERAL (SELECT (ARRAY['page_changed', 'comment', 'mentioned'])[1 + k % 3] AS type) AS t
       JOIN ponds o ON o.slug = 'pond-' || CASE WHEN k = 10 AND n.i % 10 = 0 THEN (n.i + 5) % $2 WHEN k % 2 = 1 THEN n.i % $2 ELSE (n.i + 7) % $2 END
       JOIN pages pg ON pg.pond_id = o.id AND pg.slug = 'page-' || ((n.i * 7 + k * 13) % $3)
      WHERE u.username LIKE 'reader%'`,
    [PER_USER, PONDS, PAGES_PER_POND],
  );
  await run('ANALYZE');
}

export const digestBenchPart: NotifyBenchPart = {
  key: 'b',
  title: '(b) the digest job for 10,000 users with 100,000 pending notifications',
  async run(): Promise<Row[]> {
    const database = await openBenchDatabase({ durable: true });
    const smtp = await startSmtpSink();
    try {
      const { sequelize } = database;
      await seed(sequelize);
      const [{ pending }] = (await sequelize.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM notifications WHERE mailed_at IS NULL`, { type: QueryTypes.SELECT })) as [{ pending: number }];
      if (pending !== USERS * PER_USER) throw new Error(`seeded ${pending} notifications, expected ${USERS * PER_USER}`);
      await sequelize.transaction(async (transaction) => {
        await setSetting('smtp.settings', { host: '127.0.0.1', port: smtp.port, secure: false, from: 'Bench <bench@example.org>' }, { actorId: null, transaction });
        await setSetting('instance.baseUrl', BASE_URL, { actorId: null, transaction });
      });
      const logger = createLogger('error', 'worker');
      const dependencies = { sequelize, mailer: new Mailer({ fallback: null, logger }), baseUrl: BASE_URL, sessionSecret: 'bench-session-secret-0123456789abcdef', logger };

      const started = process.hrtime.bigint();
      const outcome = await runNotificationDigest(dependencies);
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;

      const received = await smtp.received();
      const dropped = USERS / 10;
      if (outcome.users !== USERS || outcome.mailsSent !== USERS || outcome.mailsFailed !== 0 || received.mails !== USERS) {
        throw new Error(`unexpected outcome ${JSON.stringify(outcome)}, ${received.mails} mails received`);
      }
      if (outcome.entriesDropped !== dropped || outcome.entriesMailed !== USERS * PER_USER - dropped) throw new Error(`unexpected entries ${JSON.stringify(outcome)}`);
      const [{ left }] = (await sequelize.query<{ left: number }>(`SELECT count(*)::int AS left FROM notifications WHERE mailed_at IS NULL`, { type: QueryTypes.SELECT })) as [{ left: number }];
      if (left !== 0) throw new Error(`${left} notifications left unmarked`);
      if (!received.first?.includes('List-Unsubscribe-Post: List-Unsubscribe=One-Click')) throw new Error('the first mail lacks its List-Unsubscribe headers');

      const share = elapsedMs / SLOT_MS;
      return [
        {
          target: '(b) digest, 10,000 users, 100,000 notifications',
          figure: `${(elapsedMs / 1000).toFixed(1)} s`,
          baseline: '15 min slot',
          ratio: `${share.toFixed(3)}×`,
          goal: `≤ ${TARGET_SLOT_SHARE}× the slot`,
          met: share <= TARGET_SLOT_SHARE,
        },
        {
          target: '(b) mails sent (info)',
          figure: `${Math.round(USERS / (elapsedMs / 1000))} mails/s, ${(received.bytes / USERS / 1024).toFixed(1)} KiB each`,
          baseline: '–',
          ratio: '–',
          goal: '–',
          met: true,
        },
      ];
    } finally {
      await smtp.close();
      await database.close();
    }
  },
};

if (process.argv.includes(SINK_ARGUMENT)) await runSmtpSink();
else if (import.meta.main) {
  console.log(`${digestBenchPart.title} …`);
  const rows = await digestBenchPart.run();
  console.log('');
  printTable(rows);
}
