/**
 * `npm run bench:admin-audit` — the system panel's audit log at 1,000,000 entries.
 *
 * A scratch database gets 200 accounts and 1,000,000 audit entries (one `INSERT … SELECT
 * generate_series`): 40 actions drawn independently of the actor, the actor one of the
 * accounts (5 % without an actor), the time spread over a year (about 32 s apart). Timed through
 * `listAuditEntries` (what `GET /admin/system/audit` runs), p95 of 300 alternating runs each:
 *
 * - the first page (50 newest entries, no filter);
 * - a page filtered by actor (a username), action (exact) and a one-day range;
 * - for information: a page by action prefix (`admin.*`), by actor alone, by actor and action
 *   without a range (1 in 40 of the actor's entries), and one deep in the log by cursor.
 *
 * Baseline for each: `SELECT … FROM audit_entries ORDER BY id DESC LIMIT 50`, a read by
 * primary key of as many rows from the same table. Target: p95 ≤ 2× the baseline's p95.
 */
import { QueryTypes } from 'sequelize';
import { listAuditEntries, type AuditListQuery } from '../../api/audit/auditList.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { printTable, type Row } from './benchTable.ts';
import { measureAlternating } from './timing.ts';

const ENTRIES = 1_000_000;
const USERS = 200;
const ACTIONS = 40;
const PAGE = 50;
const TARGET_RATIO = 2;
/** The newest entry's time; entries go back one year from here, about 32 s apart. */
const NEWEST = Date.parse('2026-06-30T12:00:00Z');
const SPREAD_SECONDS = 365 * 24 * 3600;

const database = await openBenchDatabase();
const { sequelize } = database;
try {
  const seeding = Date.now();
  await sequelize.query(`
    INSERT INTO users (username, email, display_name, status)
    SELECT 'auditor' || n, 'auditor' || n || '@example.org', 'Auditor ' || n, 'ACTIVE' FROM generate_series(1, ${USERS}) n`);
  const actions = Array.from({ length: ACTIONS }, (_, index) => `${['auth', 'admin', 'api', 'backup', 'file'][index % 5]}.action_${index}`);
  await sequelize.query(
    `INSERT INTO audit_entries (actor_id, actor_name, action, details, ip, created_at)
     SELECT CASE WHEN n % 20 = 0 THEN NULL ELSE u.id END,
            CASE WHEN n % 20 = 0 THEN NULL ELSE u.username END,
            (ARRAY[:actions])[1 + abs(hashtext(n::text)) % ${ACTIONS}],
            jsonb_build_object('n', n),
            '203.0.113.' || (n % 250),
            to_timestamp(:newest) - make_interval(secs => ((${ENTRIES} - n) * ${SPREAD_SECONDS}::bigint / ${ENTRIES}))
       FROM generate_series(1::bigint, ${ENTRIES}) n
       JOIN (SELECT id, username, row_number() OVER (ORDER BY username) - 1 AS slot FROM users WHERE username LIKE 'auditor%') u ON u.slot = (n * 31) % ${USERS}`,
    { replacements: { actions, newest: NEWEST / 1000 } },
  );
  // As autovacuum leaves an append-only table: statistics, and the visibility map index-only scans need.
  await sequelize.query('VACUUM ANALYZE users');
  await sequelize.query('VACUUM ANALYZE audit_entries');
  const [{ count }] = (await sequelize.query<{ count: string }>('SELECT count(*) AS count FROM audit_entries', { type: QueryTypes.SELECT })) as [{ count: string }];
  console.log(`seeded ${count} audit entries in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);

  // A day, an actor and an action that meet there: taken from an entry in the middle of the log.
  const [probe] = await sequelize.query<{ actor_name: string; action: string; day: string }>(
    `SELECT actor_name, action, to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day FROM audit_entries WHERE actor_name IS NOT NULL ORDER BY id OFFSET ${ENTRIES / 2} LIMIT 1`,
    { type: QueryTypes.SELECT },
  );
  const from = `${probe!.day}T00:00:00.000Z`;
  const to = new Date(Date.parse(from) + 24 * 3600 * 1000).toISOString();
  const filtered: AuditListQuery = { actor: probe!.actor_name, action: probe!.action, from, to, limit: PAGE };
  const deepCursor = await listAuditEntries(sequelize, { limit: PAGE, to: new Date(NEWEST - 200 * 24 * 3600 * 1000).toISOString() });
  const matching = (await listAuditEntries(sequelize, { ...filtered, limit: 200 })).items.length;
  console.log(`filtered page: actor ${probe!.actor_name}, action ${probe!.action}, ${probe!.day} (${matching} matching entries)`);

  const baseline = () => sequelize.query(`SELECT id, action, actor_id, actor_name, ip, details, created_at FROM audit_entries ORDER BY id DESC LIMIT ${PAGE}`, { type: QueryTypes.SELECT });
  const timings = await measureAlternating(
    {
      baseline,
      firstPage: () => listAuditEntries(sequelize, { limit: PAGE }),
      filtered: () => listAuditEntries(sequelize, filtered),
      prefix: () => listAuditEntries(sequelize, { action: 'admin.*', limit: PAGE }),
      actorOnly: () => listAuditEntries(sequelize, { actor: probe!.actor_name, limit: PAGE }),
      actorAction: () => listAuditEntries(sequelize, { actor: probe!.actor_name, action: probe!.action, limit: PAGE }),
      deep: () => listAuditEntries(sequelize, { limit: PAGE, cursor: deepCursor.next! }),
    },
    { warmup: 20, runs: 300 },
  );
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const row = (target: string, timing: { p95: number }, goal: boolean): Row => {
    const ratio = timing.p95 / timings.baseline.p95;
    return { target, figure: `p95 ${ms(timing.p95)}`, baseline: `p95 ${ms(timings.baseline.p95)}`, ratio: `${ratio.toFixed(2)}×`, goal: goal ? `≤ ${TARGET_RATIO}×` : '(info)', met: !goal || ratio <= TARGET_RATIO };
  };
  const rows = [
    row('first page (50 newest)', timings.firstPage, true),
    row('actor + action + one day', timings.filtered, true),
    row('action prefix admin.*', timings.prefix, false),
    row('actor alone (username)', timings.actorOnly, false),
    row('actor + action, no range', timings.actorAction, false),
    row('deep page by cursor', timings.deep, false),
  ];
  console.log(`\naudit log at ${ENTRIES.toLocaleString('en')} entries (medians: baseline ${ms(timings.baseline.median)}, first ${ms(timings.firstPage.median)}, filtered ${ms(timings.filtered.median)})`);
  printTable(rows);
  if (rows.some((entry) => !entry.met)) process.exitCode = 1;
} finally {
  await database.close();
}
