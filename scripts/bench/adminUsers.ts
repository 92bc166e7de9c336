/**
 * `npm run bench:admin-users` — the Site Admin's account directory at size.
 *
 * 100,000 accounts seeded in one `INSERT … SELECT generate_series` (German and Turkish names
 * with umlauts, ß and cedillas, so folding has work to do; 1 in 47 a Site Admin, 1 in 23
 * disabled). The directory search (`listAccounts`, the function `GET /admin/users` calls, a
 * page of 50) runs for queries an admin types — a whole username, a part of an e-mail, a
 * display name typed without accents, a surname shared by many, a first name shared by
 * thousands, the Site Admin filter with a search — alternating with the baseline: one account
 * looked up by its exact username through the `lower(username)` index (`User.findOne`, the
 * same ORM path), 200 timed runs each (a p95 of 60 runs was one of its three slowest, and swung
 * with them). Target: the search's p95 ≤ 2× the baseline's p95 for every query of three or
 * more characters. Printed besides: a two-character search (it cannot use the trigram index and
 * walks the listing's order) and the directory's worst shape, a first name held by thousands that
 * sorts last (its accounts sit on every page of the table, and in the listing's order behind all
 * others). Each search's plan is checked: no sequential scan of `users`.
 *
 * `BENCH_ADMIN_USERS=10000` runs on fewer accounts, for quick iterations; `BENCH_EXPLAIN=1`
 * prints each search's statement and its analysed plan.
 */
import pg from 'pg';
import { fn, col, where, type Sequelize } from 'sequelize';
import { User } from '../../api/models/index.ts';
import { listAccounts, type AccountListOptions } from '../../api/users/accountListing.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { measureAlternating } from './timing.ts';

const ACCOUNTS = Number(process.env.BENCH_ADMIN_USERS ?? 100_000);
const PAGE = 50;
const RATIO_TARGET = 2;
const RUNS = 200;

const FIRST_NAMES = ['Jörg', 'Anna', 'Björn', 'Çağla', 'Emil', 'Frieda', 'Günther', 'Hülya', 'Ilse', 'Jürgen', 'Käthe', 'Lars', 'Mia', 'Nils', 'Özlem', 'Paul', 'Renée', 'Sören', 'Tülay', 'Ute'];
const LAST_NAMES = ['Müller', 'Schäfer', 'Weiß', 'Groß', 'Köhler', 'Öztürk', 'Yılmaz', 'Çelik', 'Bäcker', 'Schröder', 'Krüger', 'Möller', 'Jäger', 'Hoffmann', 'Wagner', 'Fuchs', 'Brünig', 'Straßer', 'Löwe', 'Dürr', 'Häberle', 'Zöllner', 'Kühn', 'Nüßlein', 'Gärtner'];

/** `Jörg` → `jorg`, as the seed spells names in usernames and e-mails. */
function asciiOf(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').replace(/ı/g, 'i').toLowerCase();
}

async function seed(sequelize: Sequelize): Promise<void> {
  const firstNames = `ARRAY[${FIRST_NAMES.map((name) => `'${name}'`).join(', ')}]`;
  const lastNames = `ARRAY[${LAST_NAMES.map((name) => `'${name}'`).join(', ')}]`;
  const asciiFirst = `ARRAY[${FIRST_NAMES.map((name) => `'${asciiOf(name)}'`).join(', ')}]`;
  const asciiLast = `ARRAY[${LAST_NAMES.map((name) => `'${asciiOf(name)}'`).join(', ')}]`;
  const first = (names: string) => `(${names})[1 + i % ${FIRST_NAMES.length}]`;
  const last = (names: string) => `(${names})[1 + (i / ${FIRST_NAMES.length}) % ${LAST_NAMES.length}]`;
  // Committed durably although the scratch cluster commits asynchronously: until its commit is
  // on disk, VACUUM marks no page all-visible, and the walk could not read its index alone.
  await sequelize.query(`
    BEGIN;
    SET LOCAL synchronous_commit = on;
    INSERT INTO users (username, email, display_name, status, is_site_admin, email_verified_at, last_login_at)
    SELECT ${first(asciiFirst)} || '.' || ${last(asciiLast)} || i,
           ${first(asciiFirst)} || '.' || ${last(asciiLast)} || '.' || i || '@' || (ARRAY['dorf.example', 'stadt.example', 'mail.example'])[1 + i % 3],
           ${first(firstNames)} || ' ' || ${last(lastNames)},
           CASE WHEN i % 23 = 7 THEN 'disabled' ELSE 'ACTIVE' END,
           i % 47 = 3,
           now(),
           now() - (i % 400) * interval '1 day'
      FROM generate_series(1, ${ACCOUNTS}) AS i;
    COMMIT;
  `);
  // As a live instance's table is: autovacuum has merged the trigram index's pending entries and
  // marked the settled pages all-visible.
  await sequelize.query('VACUUM ANALYZE users');
}

interface BenchSearch {
  label: string;
  options: Omit<AccountListOptions, 'limit'>;
}

function searches(): BenchSearch[] {
  const someone = 4_711 % ACCOUNTS;
  const first = asciiOf(FIRST_NAMES[someone % FIRST_NAMES.length]!);
  const lastName = LAST_NAMES[Math.floor(someone / FIRST_NAMES.length) % LAST_NAMES.length]!;
  const last = asciiOf(lastName);
  return [
    { label: `a whole username ("${first}.${last}${someone}")`, options: { q: `${first}.${last}${someone}` } },
    { label: `a part of an e-mail ("${last}.${someone}@")`, options: { q: `${last}.${someone}@` } },
    { label: `a display name without accents ("${first} ${last}")`, options: { q: `${first} ${last}` } },
    { label: `a surname shared by ${Math.round(100 / LAST_NAMES.length)} % ("${last}")`, options: { q: last } },
    { label: `a display name as written ("${lastName.toUpperCase()}")`, options: { q: lastName.toUpperCase() } },
    { label: 'Site Admins named "jorg"', options: { q: 'jorg', siteAdmin: true } },
    { label: 'disabled accounts at "stadt.example"', options: { q: 'stadt.example', status: 'disabled' } },
    { label: 'a third of all accounts ("stadt.example")', options: { q: 'stadt.example' } },
  ];
}

interface SentStatement {
  name: string;
  text: string;
  values: unknown[];
}

/** A value written into a statement's text, as `EXPLAIN EXECUTE` takes it. */
function literalOf(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return client.escapeLiteral(String(value));
}

/**
 * The plans of the statements behind `options` that read `users` sequentially (none: null). The
 * listing's reads are named prepared statements: they are caught from the pg client for this one
 * call, then explained on a connection of their own under both plans Postgres may keep for them,
 * the one made for the values and the generic one it switches to after five executions.
 */
async function scansSequentially(url: string, options: AccountListOptions): Promise<string | null> {
  const sent: SentStatement[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as Partial<SentStatement> | string;
    if (typeof config === 'object' && config.name?.startsWith('account-listing-')) sent.push(config as SentStatement);
    return (query as (...input: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await listAccounts(options);
  } finally {
    pg.Client.prototype.query = query;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sequential: string[] = [];
  try {
    for (const [index, statement] of sent.entries()) {
      await client.query(`PREPARE checked_${index} AS ${statement.text}`);
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await client.query(`SET plan_cache_mode = ${mode}`);
        const explain = `EXPLAIN ${process.env.BENCH_EXPLAIN ? '(ANALYZE, BUFFERS) ' : ''}EXECUTE checked_${index}(${statement.values.map((value) => literalOf(client, value)).join(', ')})`;
        const text = (await client.query<{ 'QUERY PLAN': string }>(explain)).rows.map((row) => row['QUERY PLAN']).join('\n');
        if (process.env.BENCH_EXPLAIN) console.log(`${statement.text}\n${mode}:\n${text}`);
        if (/Seq Scan on users/.test(text)) sequential.push(text);
      }
    }
  } finally {
    await client.end();
  }
  return sequential.length > 0 ? sequential.join('\n') : null;
}

const database = await openBenchDatabase();
try {
  const { sequelize } = database;
  const seedStarted = Date.now();
  await seed(sequelize);
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const baselineName = (await User.findOne({ where: { status: 'ACTIVE' }, order: [['username', 'ASC']] }))!.username;
  const baseline = () => User.findOne({ where: where(fn('lower', col('username')), baselineName.toLowerCase()) });

  const format = (value: number) => value.toFixed(2).padStart(7);
  console.log(`bench:admin-users — ${ACCOUNTS.toLocaleString('en')} accounts seeded in ${seedSeconds.toFixed(1)} s; a page of ${PAGE}; ${RUNS} timed runs each`);
  let missed = 0;
  const rows: string[] = [];
  const lastFirstName = FIRST_NAMES.map(asciiOf).sort().at(-1)!;
  const printedBesides: (BenchSearch & { informational: true })[] = [
    { label: 'two characters ("mu"), no trigram index', options: { q: 'mu' }, informational: true },
    { label: `a first name sorting last ("${lastFirstName}")`, options: { q: lastFirstName }, informational: true },
  ];
  for (const search of [...searches(), ...printedBesides]) {
    const options: AccountListOptions = { ...search.options, limit: PAGE };
    const found = (await listAccounts(options)).users.length;
    const timing = await measureAlternating({ baseline, search: () => listAccounts(options) }, { warmup: 5, runs: RUNS });
    const ratio = timing.search.p95 / timing.baseline.p95;
    const informational = 'informational' in search && search.informational;
    const seqScan = await scansSequentially(database.url, options);
    const met = ratio <= RATIO_TARGET && !seqScan;
    if (!met && !informational) missed += 1;
    rows.push(
      `  ${search.label.padEnd(58)} ${String(found).padStart(3)} hits  median ${format(timing.search.median)} / p95 ${format(timing.search.p95)} ms  baseline ${format(timing.baseline.median)} / ${format(timing.baseline.p95)} ms  ratio ${ratio.toFixed(2)}×${seqScan ? '  SEQ SCAN' : ''}${informational ? '  (informational)' : met ? '' : '  MISSED'}`,
    );
    console.log(rows[rows.length - 1]);
  }
  console.log(`  target: every search of 3+ characters p95 ≤ ${RATIO_TARGET}× the exact lookup's p95, no sequential scan → ${missed === 0 ? 'met' : `MISSED (${missed})`}`);
  process.exitCode = missed === 0 ? 0 : 1;
} finally {
  await database.close();
}
