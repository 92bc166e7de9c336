/**
 * The read policy as SQL (`readableLivePagesSql`) against the one-page resolution
 * (`SubjectAccess.page(page, 'read')`): on generated ponds (label trees, labelled pages, random
 * allow/deny grants for users, signed-in and public at pond, label and page scope; several
 * seeds), `SELECT … WHERE trashed_at IS NULL AND <predicate>` selects exactly the live pages
 * the resolution lets each subject read — member, another user, anonymous, Site Admin, pond
 * admin — and never a trashed page nor a page of a pond left out of the accesses. Also: no
 * readable pond gives `false`, and a trashed pond is closed to all but its admins.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import { Pond, User, type GrantSubjectType, type Label, type PondRole } from '../models/index.ts';
import { seededRandom } from '../../scripts/seededRandom.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels, seedSharedPond, type SeedGrantProps } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { subjectAccessTo } from './accessPolicy.ts';
import { ANONYMOUS, type AccessSubject, type SubjectAccess, type Verdict } from './grantResolution.ts';
import { invalidateAllPondAccess } from './pondAccessCache.ts';
import { readableLivePagesSql, readablePagesLists, SqlParameters } from './readablePagesSql.ts';

const SEEDS = [11, 23, 37, 59] as const;
/** World index → index of the pond put in the trash (0 is the pond admin subject's own pond). */
const TRASHED_POND: Record<number, number> = { 1: 0, 2: 2 };
const PONDS_PER_WORLD = 3;
const LABELS_PER_POND = 8;
const PAGES_PER_POND = 40;
const GRANTS_PER_POND = 25;

interface SeededPage {
  id: string;
  pondId: string;
  title: string;
  trashed: boolean;
}

interface World {
  seed: number;
  pondIds: string[];
  pages: SeededPage[];
}

interface People {
  member: string;
  other: string;
  pondAdmin: string;
  keeper: string;
}

type GrantWho = 'member' | 'other' | 'signed-in' | 'public';

async function seedWorld(seed: number, worldIndex: number, people: People): Promise<World> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
  const chance = (probability: number) => random() < probability;
  const world: World = { seed, pondIds: [], pages: [] };
  for (let pondIndex = 0; pondIndex < PONDS_PER_WORLD; pondIndex += 1) {
    const pond = await seedSharedPond(pondIndex === 0 ? people.pondAdmin : people.keeper, `Seed ${seed} pond ${pondIndex}`);
    world.pondIds.push(pond.id);

    const labels: { label: Label; depth: number }[] = [];
    for (let index = 0; index < LABELS_PER_POND; index += 1) {
      const parent = chance(0.65) ? pick(labels.filter((entry) => entry.depth < 3)) : undefined;
      const label = await seedLabel(pond.id, `s${seed}-p${pondIndex}-l${index}`, { parentId: parent?.label.id ?? null });
      labels.push({ label, depth: (parent?.depth ?? 0) + 1 });
    }

    const pondPages = [];
    for (let index = 0; index < PAGES_PER_POND; index += 1) {
      const title = `s${seed}-p${pondIndex}-page${index}`;
      const trashed = chance(0.12);
      const page = await seedPage(pond.id, title, { trashed });
      const pool = labels.map((entry) => entry.label);
      const chosen: Label[] = [];
      for (let count = Math.floor(random() * 4); count > 0; count -= 1) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
      await seedPageLabels(page, chosen);
      pondPages.push(page);
      world.pages.push({ id: page.id, pondId: pond.id, title, trashed });
    }

    const seen = new Set<string>();
    for (let attempt = 0; attempt < GRANTS_PER_POND; attempt += 1) {
      const who = pick<GrantWho>(['member', 'other', 'signed-in', 'public'])!;
      const scopeType = pick(['pond', 'label', 'label', 'page', 'page'] as const)!;
      const isUser = who === 'member' || who === 'other';
      // The schema allows pond_admin only for a user at pond scope; keep it rare (it bypasses everything).
      const role: PondRole = scopeType === 'pond' && isUser && chance(0.1) ? 'pond_admin' : pick<PondRole>(['reader', 'editor'])!;
      const effect = chance(0.6) ? 'allow' : 'deny';
      const scope: NonNullable<SeedGrantProps['scope']> =
        scopeType === 'pond' ? { type: 'pond' } : scopeType === 'label' ? { type: 'label', id: pick(labels)!.label.id } : { type: 'page', id: pick(pondPages)!.id };
      // The grants table refuses a second rule for the same (subject, role, scope): skip it.
      const key = [who, role, scope.type, 'id' in scope ? scope.id : ''].join('|');
      if (seen.has(key)) continue;
      seen.add(key);
      const subject: SeedGrantProps['subject'] = isUser ? { type: 'user', id: people[who] } : { type: who as Exclude<GrantSubjectType, 'user'> };
      await seedGrant(pond.id, { subject, role, scope, effect });
    }
    if (TRASHED_POND[worldIndex] === pondIndex) await Pond.update({ trashedAt: new Date() }, { where: { id: pond.id } });
  }
  return world;
}

async function readableIds(sequelize: Sequelize, accesses: readonly SubjectAccess[]): Promise<{ ids: Set<string>; predicate: string; values: unknown[] }> {
  const parameters = new SqlParameters();
  const lists = readablePagesLists(accesses);
  const predicate = readableLivePagesSql('p', lists, parameters);
  const rows = await sequelize.query<{ id: string }>(`SELECT p.id FROM pages p WHERE p.trashed_at IS NULL AND ${predicate}`, {
    bind: parameters.values,
    type: QueryTypes.SELECT,
  });
  return { ids: new Set(rows.map((row) => row.id)), predicate, values: parameters.values };
}

describe('readableLivePagesSql agrees with SubjectAccess.page', () => {
  let instance: TestInstance;
  let sequelize: Sequelize;
  let people: People;
  let subjects: { name: string; subject: AccessSubject }[];
  const worlds: World[] = [];

  async function accessesFor(subject: AccessSubject, pondIds: readonly string[]): Promise<SubjectAccess[]> {
    const accesses: SubjectAccess[] = [];
    for (const pondId of pondIds) {
      const access = await subjectAccessTo(sequelize, subject, pondId);
      assert.ok(access, `pond ${pondId} exists`);
      accesses.push(access);
    }
    return accesses;
  }

  before(async () => {
    instance = await startTestInstance();
    sequelize = instance.services.sequelize;
    await completeSetup(instance);
    const [member, other, pondAdmin, keeper] = [
      await createVerifiedUser(instance),
      await createVerifiedUser(instance),
      await createVerifiedUser(instance),
      await createVerifiedUser(instance),
    ];
    people = { member: member.user.id, other: other.user.id, pondAdmin: pondAdmin.user.id, keeper: keeper.user.id };
    const siteAdmin = await User.findOne({ where: { username: 'admin' } });
    assert.equal(siteAdmin?.isSiteAdmin, true);
    const signedIn = (userId: string, isSiteAdmin = false): AccessSubject => ({ userId, signedIn: true, isSiteAdmin });
    subjects = [
      { name: 'member', subject: signedIn(people.member) },
      { name: 'other user', subject: signedIn(people.other) },
      { name: 'anonymous', subject: ANONYMOUS },
      { name: 'site admin', subject: signedIn(siteAdmin.id, true) },
      { name: 'pond admin of pond 0', subject: signedIn(people.pondAdmin) },
    ];
    for (const [index, seed] of SEEDS.entries()) worlds.push(await seedWorld(seed, index, people));
    invalidateAllPondAccess();
  });
  after(() => instance.close());

  test('selects exactly the live pages each subject may read, for every seed', async () => {
    const mismatches: string[] = [];
    const seenOutcomes = new Set<string>();
    for (const world of worlds) {
      for (const { name, subject } of subjects) {
        const accesses = await accessesFor(subject, world.pondIds);
        const byPond = new Map(accesses.map((access) => [access.data.pondId, access]));
        const { ids } = await readableIds(sequelize, accesses);
        for (const page of world.pages) {
          const where = `seed ${world.seed}, subject ${name}, page ${page.title} (${page.id})`;
          if (page.trashed) {
            if (ids.has(page.id)) mismatches.push(`${where}: trashed page selected`);
            continue;
          }
          const verdict = byPond.get(page.pondId)!.page({ id: page.id, trashedAt: null }, 'read');
          seenOutcomes.add(outcome(verdict, byPond.get(page.pondId)!, page.id));
          if (verdict.allowed !== ids.has(page.id)) {
            mismatches.push(`${where}: SubjectAccess says ${verdict.allowed} (${verdict.reason} at ${verdict.level}), SQL says ${ids.has(page.id)}`);
          }
        }
        const known = new Set(world.pages.map((page) => page.id));
        for (const id of ids) if (!known.has(id)) mismatches.push(`seed ${world.seed}, subject ${name}: page ${id} of a pond outside the accesses selected`);
      }
    }
    assert.deepEqual(mismatches, []);
    // The generated data must reach every branch of the precedence, or the agreement proves little.
    const expected = [
      'site_admin',
      'pond_admin',
      'pond_trashed',
      'page allow',
      'page deny',
      'label allow',
      'label deny',
      'label allow via ancestor',
      'label deny via ancestor',
      'label deny among several labels',
      'pond allow',
      'pond deny',
      'no_grant',
    ];
    assert.deepEqual(
      expected.filter((name) => !seenOutcomes.has(name)),
      [],
      `outcomes reached: ${[...seenOutcomes].join(', ')}`,
    );
  });

  test('a pond left out of the accesses never contributes a page, however readable', async () => {
    const siteAdmin = subjects.find((entry) => entry.name === 'site admin')!.subject;
    for (const world of worlds) {
      for (const { name, subject } of subjects) {
        const full = await readableIds(sequelize, await accessesFor(subject, world.pondIds));
        for (const left of world.pondIds) {
          const kept = world.pondIds.filter((pondId) => pondId !== left);
          const { ids } = await readableIds(sequelize, await accessesFor(subject, kept));
          const leftPages = world.pages.filter((page) => page.pondId === left);
          const where = `seed ${world.seed}, subject ${name}, pond ${left} left out`;
          for (const page of leftPages) assert.equal(ids.has(page.id), false, `${where}: page ${page.title} selected`);
          // The other ponds answer as they do with the full list.
          const expectedIds = [...full.ids].filter((id) => !leftPages.some((page) => page.id === id)).sort();
          assert.deepEqual([...ids].sort(), expectedIds, where);
        }
      }
    }
    // Sanity: the Site Admin reads everything live, so leaving a pond out is what hides its pages.
    const world = worlds[0]!;
    const all = await readableIds(sequelize, await accessesFor(siteAdmin, world.pondIds));
    assert.equal(all.ids.size, world.pages.filter((page) => !page.trashed).length, `seed ${world.seed}: the Site Admin reads every live page`);
  });

  test('trashed pages pass the bare predicate for a bypass but never the live-page query', async () => {
    const siteAdmin = subjects.find((entry) => entry.name === 'site admin')!.subject;
    for (const world of worlds) {
      const trashed = world.pages.filter((page) => page.trashed);
      assert.ok(trashed.length > 0, `seed ${world.seed} has trashed pages`);
      const parameters = new SqlParameters();
      const lists = readablePagesLists(await accessesFor(siteAdmin, world.pondIds));
      const predicate = readableLivePagesSql('p', lists, parameters);
      const bare = await sequelize.query<{ id: string }>(`SELECT p.id FROM pages p WHERE ${predicate}`, { bind: parameters.values, type: QueryTypes.SELECT });
      const bareIds = new Set(bare.map((row) => row.id));
      for (const page of trashed) assert.equal(bareIds.has(page.id), true, `seed ${world.seed}: the predicate alone does not look at ${page.title}'s trash state`);
      const { ids } = await readableIds(sequelize, await accessesFor(siteAdmin, world.pondIds));
      for (const page of trashed) assert.equal(ids.has(page.id), false, `seed ${world.seed}, site admin: trashed ${page.title} selected`);
    }
  });

  test('with no readable pond the predicate is false and selects nothing', async () => {
    const empty = await readableIds(sequelize, []);
    assert.equal(empty.predicate, 'false');
    assert.deepEqual(empty.values, []);
    assert.equal(empty.ids.size, 0);

    // A live pond where no grant reaches the subject: a real predicate, still no page.
    const closed = await seedSharedPond(people.keeper, 'Closed pond');
    const closedPage = await seedPage(closed.id, 'closed page');
    const outsider: AccessSubject = { userId: people.other, signedIn: true, isSiteAdmin: false };
    const none = await readableIds(sequelize, await accessesFor(outsider, [closed.id]));
    assert.equal(none.ids.size, 0, `predicate ${none.predicate}`);
    const keeper = await readableIds(sequelize, await accessesFor({ userId: people.keeper, signedIn: true, isSiteAdmin: false }, [closed.id]));
    assert.deepEqual([...keeper.ids], [closedPage.id], 'the pond admin reads the same page');
  });

  test('a trashed pond is closed (bypass none) to readers and open to its pond admin and the Site Admin', async () => {
    const pond = await seedSharedPond(people.pondAdmin, 'Trashed pond');
    const live = await seedPage(pond.id, 'live page of a trashed pond');
    await seedPage(pond.id, 'trashed page of a trashed pond', { trashed: true });
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
    await seedGrant(pond.id, { subject: { type: 'user', id: people.member }, role: 'editor' });
    await seedGrant(pond.id, { subject: { type: 'user', id: people.member }, role: 'reader', scope: { type: 'page', id: live.id } });
    const readers: [string, AccessSubject][] = [
      ['anonymous', ANONYMOUS],
      ['member', { userId: people.member, signedIn: true, isSiteAdmin: false }],
    ];
    const admins: [string, AccessSubject][] = [
      ['pond admin', { userId: people.pondAdmin, signedIn: true, isSiteAdmin: false }],
      ['site admin', subjects.find((entry) => entry.name === 'site admin')!.subject],
    ];
    const liveBefore = await readableIds(sequelize, await accessesFor(readers[1]![1], [pond.id]));
    assert.deepEqual([...liveBefore.ids], [live.id], 'the member reads the page while the pond is live');

    await Pond.update({ trashedAt: new Date() }, { where: { id: pond.id } });
    invalidateAllPondAccess();
    for (const [name, subject] of readers) {
      const [access] = await accessesFor(subject, [pond.id]);
      assert.equal(access!.liveReadRules().bypass, 'none', name);
      assert.equal(access!.page({ id: live.id, trashedAt: null }, 'read').allowed, false, name);
      const result = await readableIds(sequelize, [access!]);
      assert.equal(result.predicate, 'false', name);
      assert.equal(result.ids.size, 0, name);
      // Next to a readable live pond the trashed one still contributes nothing.
      const world = worlds[0]!;
      const mixed = await readableIds(sequelize, [access!, ...(await accessesFor(subject, world.pondIds))]);
      const alone = await readableIds(sequelize, await accessesFor(subject, world.pondIds));
      assert.deepEqual([...mixed.ids].sort(), [...alone.ids].sort(), `${name}: trashed pond next to live ones`);
    }
    for (const [name, subject] of admins) {
      const [access] = await accessesFor(subject, [pond.id]);
      assert.equal(access!.liveReadRules().bypass, 'all', name);
      const result = await readableIds(sequelize, [access!]);
      assert.deepEqual([...result.ids], [live.id], `${name} reads the live page of the trashed pond, not the trashed one`);
    }
  });
});

/** Which branch of the precedence decided a verdict (for the coverage check of the generator). */
function outcome(verdict: Verdict, access: SubjectAccess, pageId: string): string {
  if (verdict.reason !== 'grant') return verdict.reason;
  const effect = verdict.allowed ? 'allow' : 'deny';
  if (verdict.level !== 'label') return `${verdict.level} ${effect}`;
  const labels = access.data.pageLabels.get(pageId) ?? [];
  if (!verdict.allowed && labels.length > 1) return 'label deny among several labels';
  return labels.includes(verdict.grant!.scopeLabelId!) ? `label ${effect}` : `label ${effect} via ancestor`;
}
