/**
 * Version thinning (spec, Limits): every version younger than 90 days stays; of the older
 * ones, manual and pre-restore versions always stay and of the automatic ones only the newest
 * per page and UTC day. Versions are fabricated with given created_at values and thinned
 * against a fixed clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { createSequelize } from '../db/database.ts';
import { initModels, User, type Pond } from '../models/index.ts';
import { seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import type { VersionTrigger } from './versions.ts';
import { thinVersions, VERSION_RETENTION_DAYS } from './versionThinning.ts';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const EMPTY_STATE = Buffer.from(Y.encodeStateAsUpdate(new Y.Doc()));

describe('version thinning', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let sequelize: Sequelize;
  let pond: Pond;

  before(async () => {
    database = await createTestDatabase();
    sequelize = createSequelize(database.url, { poolMax: 2 });
    initModels(sequelize);
    const owner = await User.create({ username: 'thinner', email: 'thinner@example.org', displayName: 'Thinner', locale: null, passwordHash: null, emailVerifiedAt: new Date() });
    pond = await seedSharedPond(owner.id);
  });
  after(async () => {
    await sequelize?.close();
    await database?.drop();
  });

  async function version(pageId: string, trigger: VersionTrigger, createdAt: string): Promise<string> {
    const rows = await sequelize.query<{ id: string }>(
      `INSERT INTO page_versions (page_id, trigger, state, created_at) VALUES (:pageId, :trigger, :state, :createdAt) RETURNING id`,
      { replacements: { pageId, trigger, state: EMPTY_STATE, createdAt }, type: QueryTypes.SELECT },
    );
    return rows[0]!.id;
  }

  async function remaining(pageId: string): Promise<Set<string>> {
    const rows = await sequelize.query<{ id: string }>(`SELECT id FROM page_versions WHERE page_id = :pageId`, { replacements: { pageId }, type: QueryTypes.SELECT });
    return new Set(rows.map((row) => row.id));
  }

  test('keeps young versions, manual and pre-restore ones, and the newest automatic one per page and UTC day', async () => {
    const page = await seedPage(pond.id, 'Thinned page');
    const other = await seedPage(pond.id, 'Other page');
    assert.equal(VERSION_RETENTION_DAYS, 90);

    // Younger than 90 days: all kept, however many per day.
    const young = [
      await version(page.id, 'auto', '2025-05-31T08:00:00Z'),
      await version(page.id, 'auto', '2025-05-31T09:00:00Z'),
      await version(page.id, 'auto', '2025-05-31T10:00:00Z'),
      await version(page.id, 'auto', '2025-03-03T12:00:01Z'), // just inside the 90 days
    ];
    // An old day: three automatic versions, the newest stays; manual and pre-restore ones always stay,
    // even when they are newer than the newest automatic one of that day.
    const oldMorning = await version(page.id, 'auto', '2025-02-01T08:00:00Z');
    const oldNoon = await version(page.id, 'auto', '2025-02-01T12:00:00Z');
    const oldEvening = await version(page.id, 'auto', '2025-02-01T20:00:00Z');
    const oldManual = await version(page.id, 'MANUAL', '2025-02-01T07:00:00Z');
    const oldManualLate = await version(page.id, 'MANUAL', '2025-02-01T23:00:00Z');
    const oldPreRestore = await version(page.id, 'pre_restore', '2025-02-01T09:00:00Z');
    const veryOldPreRestore = await version(page.id, 'pre_restore', '2024-01-01T09:00:00Z');
    // A lone automatic version of its day stays.
    const lone = await version(page.id, 'auto', '2025-01-15T10:00:00Z');
    // Days are UTC days: 23:30 and 00:30 UTC are two days (in Berlin both would be 21 February).
    const beforeMidnight = await version(page.id, 'auto', '2025-02-20T23:30:00Z');
    const afterMidnight = await version(page.id, 'auto', '2025-02-21T00:30:00Z');
    const afterMidnightLater = await version(page.id, 'auto', '2025-02-21T05:00:00Z');
    // A day across the 90-day line: the old one is not the newest automatic one of its day.
    const straddlingOld = await version(page.id, 'auto', '2025-03-03T08:00:00Z');

    // Another page on the same old day: judged on its own.
    await version(other.id, 'auto', '2025-02-01T06:00:00Z');
    const otherNight = await version(other.id, 'auto', '2025-02-01T22:00:00Z');
    await version(other.id, 'auto', '2025-02-01T01:00:00Z');

    const { deleted } = await thinVersions(sequelize, { now: NOW });
    assert.equal(deleted, 6);
    assert.deepEqual(
      await remaining(page.id),
      new Set([...young, oldEvening, oldManual, oldManualLate, oldPreRestore, veryOldPreRestore, lone, beforeMidnight, afterMidnightLater]),
    );
    for (const gone of [oldMorning, oldNoon, afterMidnight, straddlingOld]) assert.ok(!(await remaining(page.id)).has(gone));
    assert.deepEqual(await remaining(other.id), new Set([otherNight]));

    // Thinning again changes nothing; a day later the formerly young versions are still too young.
    assert.deepEqual(await thinVersions(sequelize, { now: NOW }), { deleted: 0 });
    assert.deepEqual(await thinVersions(sequelize, { now: new Date('2025-06-02T12:00:00Z') }), { deleted: 0 });

    // Once the last 90 days pass, the young day of three is thinned to its newest.
    assert.deepEqual(await thinVersions(sequelize, { now: new Date('2025-09-01T12:00:00Z') }), { deleted: 2 });
    const left = await remaining(page.id);
    assert.ok(left.has(young[2]!) && !left.has(young[0]!) && !left.has(young[1]!));
    assert.ok(left.has(young[3]!), 'the newest automatic version of 3 March stays');
  });

  test('a page with only recent or only non-automatic versions loses nothing', async () => {
    const page = await seedPage(pond.id, 'Untouched page');
    const ids = [
      await version(page.id, 'MANUAL', '2020-01-01T10:00:00Z'),
      await version(page.id, 'MANUAL', '2020-01-01T11:00:00Z'),
      await version(page.id, 'pre_restore', '2020-01-01T12:00:00Z'),
      await version(page.id, 'auto', '2025-05-30T10:00:00Z'),
      await version(page.id, 'auto', '2025-05-30T11:00:00Z'),
    ];
    await thinVersions(sequelize, { now: NOW });
    assert.deepEqual(await remaining(page.id), new Set(ids));
  });
});
