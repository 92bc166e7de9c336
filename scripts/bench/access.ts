/**
 * `npm run bench:access` — read access for a full page listing.
 *
 * One pond with 10,000 pages, a 3-level label tree (5 × 4 × 3 labels, every page carrying one
 * or two), and 200 grants (pond, label and page scope; allow and deny; for the user, all
 * signed-in users and the public). One reader lists every page they may read, with the
 * permission cache warm (the normal case) and cold (right after an access change), against
 * the same listing with no permission filtering. Target: ≤ 2× and ≤ 50 ms.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { listAllPagesUnfiltered, listVisiblePages } from '../../api/pages/pageListing.ts';
import { SubjectAccess, subjectAccessTo } from '../../api/policies/accessPolicy.ts';
import { invalidatePondAccess } from '../../api/policies/pondAccessCache.ts';
import { openBenchDatabase } from './benchDatabase.ts';
import { measureAlternating } from './timing.ts';

const PAGES = 10_000;
const GRANTS = 200;

/** A deterministic pseudo-random sequence, so every run builds the same pond. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

async function seed(sequelize: Sequelize): Promise<{ pondId: string; readerId: string }> {
  const random = seededRandom(42);
  const run = (sql: string, replacements: Record<string, unknown> = {}) => sequelize.query(sql, { replacements, type: QueryTypes.SELECT });
  const [owner] = (await run(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('owner', 'owner@example.org', 'Owner', 'ACTIVE', 'x') RETURNING id`)) as { id: string }[];
  const [reader] = (await run(`INSERT INTO users (username, email, display_name, status, password_hash) VALUES ('reader', 'reader@example.org', 'Reader', 'ACTIVE', 'x') RETURNING id`)) as { id: string }[];
  const [pond] = (await run(`INSERT INTO ponds (slug, name, kind, owner_id) VALUES ('bench', 'Bench', 'shared', :owner) RETURNING id`, { owner: owner!.id })) as { id: string }[];
  const pondId = pond!.id;
  // Pages: the first 1,000 at the top level, the rest below one of the earlier pages.
  await run(
    `INSERT INTO pages (pond_id, slug, title, position, parent_id, created_at)
     SELECT :pondId, 'page-' || n, 'Page ' || n, lpad(n::text, 6, '0'), NULL, now() - (n || ' seconds')::interval
       FROM generate_series(1, 1000) n`,
    { pondId },
  );
  await run(
    `WITH roots AS (SELECT id, row_number() OVER (ORDER BY slug) AS r FROM pages WHERE pond_id = :pondId)
     INSERT INTO pages (pond_id, slug, title, position, parent_id, created_at)
     SELECT :pondId, 'page-' || n, 'Page ' || n, lpad(n::text, 6, '0'), roots.id, now() - (n || ' seconds')::interval
       FROM generate_series(1001, :pages) n JOIN roots ON roots.r = 1 + (n % 1000)`,
    { pondId, pages: PAGES },
  );
  // Labels: 5 roots × 4 children × 3 grandchildren.
  const labelIds: string[] = [];
  for (let a = 0; a < 5; a += 1) {
    const [root] = (await run(`INSERT INTO labels (pond_id, name, color) VALUES (:pondId, :name, '#336699') RETURNING id`, { pondId, name: `L${a}` })) as { id: string }[];
    labelIds.push(root!.id);
    for (let b = 0; b < 4; b += 1) {
      const [child] = (await run(`INSERT INTO labels (pond_id, parent_id, name, color) VALUES (:pondId, :parent, :name, '#336699') RETURNING id`, { pondId, parent: root!.id, name: `L${a}.${b}` })) as { id: string }[];
      labelIds.push(child!.id);
      for (let c = 0; c < 3; c += 1) {
        const [leaf] = (await run(`INSERT INTO labels (pond_id, parent_id, name, color) VALUES (:pondId, :parent, :name, '#336699') RETURNING id`, { pondId, parent: child!.id, name: `L${a}.${b}.${c}` })) as { id: string }[];
        labelIds.push(leaf!.id);
      }
    }
  }
  const pageIds = ((await run(`SELECT id FROM pages WHERE pond_id = :pondId ORDER BY slug`, { pondId })) as { id: string }[]).map((row) => row.id);
  const assignments: string[] = [];
  for (const pageId of pageIds) {
    const first = labelIds[Math.floor(random() * labelIds.length)]!;
    assignments.push(`('${pageId}', '${first}', '${pondId}')`);
    const second = labelIds[Math.floor(random() * labelIds.length)]!;
    if (random() < 0.5 && second !== first) assignments.push(`('${pageId}', '${second}', '${pondId}')`);
  }
  await sequelize.query(`INSERT INTO page_labels (page_id, label_id, pond_id) VALUES ${assignments.join(',')}`);
  // Grants: the owner's admin grant, the reader's pond-level reader grant, then label and page grants.
  await run(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect) VALUES (:pondId, 'user', :owner, 'pond_admin', 'pond', 'allow'), (:pondId, 'user', :reader, 'reader', 'pond', 'allow')`, { pondId, owner: owner!.id, reader: reader!.id });
  const subjects = [`'user', '${reader!.id}'`, `'signed-in', NULL`, `'public', NULL`];
  // One rule per (subject, role, scope): the schema refuses an allow and a deny of the same.
  const rows = new Map<string, string>();
  let labelGrants = 0;
  while (rows.size < GRANTS - 2) {
    const subject = subjects[Math.floor(random() * subjects.length)]!;
    const role = random() < 0.7 ? 'reader' : 'editor';
    const effect = random() < 0.35 ? 'deny' : 'allow';
    if (labelGrants < 40 && random() < 0.25) {
      const labelId = labelIds[Math.floor(random() * labelIds.length)]!;
      const key = `${subject}|${role}|label|${labelId}`;
      if (!rows.has(key)) labelGrants += 1;
      rows.set(key, `('${pondId}', ${subject}, '${role}', 'label', '${labelId}', NULL, '${effect}')`);
    } else {
      const pageId = pageIds[Math.floor(random() * pageIds.length)]!;
      rows.set(`${subject}|${role}|page|${pageId}`, `('${pondId}', ${subject}, '${role}', 'page', NULL, '${pageId}', '${effect}')`);
    }
  }
  await sequelize.query(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_label_id, scope_page_id, effect) VALUES ${[...rows.values()].join(',')}`,
  );
  await sequelize.query('ANALYZE');
  return { pondId, readerId: reader!.id };
}

const database = await openBenchDatabase();
try {
  const { pondId, readerId } = await seed(database.sequelize);
  const [{ count: grantCount }] = (await database.sequelize.query(`SELECT count(*)::int AS count FROM grants WHERE pond_id = :pondId`, { replacements: { pondId }, type: QueryTypes.SELECT })) as { count: number }[] as [{ count: number }];
  const subject = { userId: readerId, signedIn: true, isSiteAdmin: false };
  const fullListing = async () => {
    const access = (await subjectAccessTo(database.sequelize, subject, pondId)) as SubjectAccess;
    return listVisiblePages(database.sequelize, access, { limit: PAGES });
  };
  const visible = (await fullListing()).items.length;
  const { baseline, warm, cold } = await measureAlternating({
    baseline: () => listAllPagesUnfiltered(database.sequelize, pondId),
    warm: fullListing,
    cold: async () => {
      invalidatePondAccess(pondId);
      return fullListing();
    },
  }, { runs: 60 });
  const format = (value: number) => value.toFixed(1).padStart(6);
  console.log(`bench:access — ${PAGES} pages, ${grantCount} grants, 3-level label tree (85 labels); the reader may read ${visible} pages`);
  console.log(`  unfiltered listing (baseline)     median ${format(baseline.median)} ms   p95 ${format(baseline.p95)} ms`);
  console.log(`  filtered listing, cache warm      median ${format(warm.median)} ms   p95 ${format(warm.p95)} ms   ratio ${(warm.median / baseline.median).toFixed(2)}×`);
  console.log(`  filtered listing, cache cold      median ${format(cold.median)} ms   p95 ${format(cold.p95)} ms   ratio ${(cold.median / baseline.median).toFixed(2)}×`);
  console.log(`  cost of the permission filter (warm − baseline): ${(warm.median - baseline.median).toFixed(1)} ms for ${PAGES} pages`);
  const withinTarget = warm.median <= 50 && warm.median / baseline.median <= 2;
  console.log(`  target (warm): ≤ 2× and ≤ 50 ms → ${withinTarget ? 'met' : 'MISSED'}`);
} finally {
  await database.close();
}
