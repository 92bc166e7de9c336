/**
 * Property tests of the page tree: hundreds of random operation sequences (create, move,
 * reparent, trash promote/subtree, restore in random order, purge) on small trees, with the
 * tree invariants checked after every step; and order-independent restore. Commands are
 * called directly (the routes add only access rules and views, tested elsewhere).
 *
 * Seeded: the seed is printed; `TREE_PROPERTY_SEED=<n>` replays a run. Every run draws a new
 * master seed, so the suite's runs add up to ever more sequences; one run's share is sized to
 * the suite's time on two cores (docs/testing.md), and a heavier run is one variable away.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createPage } from '../commands/pageCommands.ts';
import { movePage } from '../commands/pageMoveCommands.ts';
import { purgePage, restorePage, trashPage } from '../commands/pageTrashCommands.ts';
import { ApiError } from '../http/apiError.ts';
import type { Pond } from '../models/index.ts';
import { subjectAccessTo, type SubjectAccess } from '../policies/accessPolicy.ts';
import { seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { signInUsers } from '../testing/pondTestSetup.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { treeViolations, type TreeSnapshotRow } from '../testing/treeInvariants.ts';
import { seededRandom } from '../../scripts/seededRandom.ts';

// Heavier runs: TREE_PROPERTY_SEQUENCES=20000.
const SEQUENCES = Number(process.env.TREE_PROPERTY_SEQUENCES ?? 400);
const STEPS = 8;
// Ponds are independent (no shared lock), so lanes run side by side.
const LANES = 4;
const REFUSALS = new Set(['page_cycle', 'page_depth_exceeded']);
const locale = async () => 'en' as const;

const masterSeed = Number(process.env.TREE_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));

async function snapshot(sequelize: Sequelize, pondId: string): Promise<TreeSnapshotRow[]> {
  return sequelize.query<TreeSnapshotRow>(
    `SELECT id, parent_id, position, trashed_at, home_parent_id, search_vector IS NOT NULL AS has_vector
       FROM pages WHERE pond_id = :pondId ORDER BY id`,
    { replacements: { pondId }, type: QueryTypes.SELECT },
  );
}

interface Lane {
  sequelize: Sequelize;
  ownerId: string;
}

class Sequence {
  readonly random: () => number;
  readonly log: string[] = [];
  rows: TreeSnapshotRow[] = [];
  readonly lane: Lane;
  readonly pond: Pond;
  readonly access: SubjectAccess;
  titles = 0;

  constructor(lane: Lane, pond: Pond, access: SubjectAccess, seed: number) {
    this.lane = lane;
    this.pond = pond;
    this.access = access;
    this.random = seededRandom(seed);
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.random() * items.length)];
  }

  get live(): TreeSnapshotRow[] {
    return this.rows.filter((row) => !row.trashed_at);
  }

  get trashed(): TreeSnapshotRow[] {
    return this.rows.filter((row) => row.trashed_at);
  }

  /** A random placement among the live children of `parentId` (other than `movingId`). */
  placement(parentId: string | null, movingId: string | null): { before?: string; after?: string; index?: number } {
    const siblings = this.live.filter((row) => row.parent_id === parentId && row.id !== movingId);
    const sibling = this.pick(siblings);
    const choice = this.random();
    if (sibling && choice < 0.3) return { before: sibling.id };
    if (sibling && choice < 0.6) return { after: sibling.id };
    if (choice < 0.8) return { index: Math.floor(this.random() * (siblings.length + 1)) };
    return {};
  }

  async refresh(): Promise<void> {
    this.rows = await snapshot(this.lane.sequelize, this.pond.id);
    const violations = treeViolations(this.rows);
    assert.deepEqual(violations, [], `tree invariants broken after:\n${this.log.join('\n')}`);
  }

  async create(): Promise<void> {
    const parent = this.random() < 0.3 ? null : (this.pick(this.live)?.id ?? null);
    const placement = this.placement(parent, null);
    this.titles += 1;
    this.log.push(`create under ${parent} ${JSON.stringify(placement)}`);
    await createPage(this.lane.sequelize, { pond: this.pond, access: this.access, userId: this.lane.ownerId, input: { title: `Page ${this.titles}`, parentId: parent, ...placement }, locale });
  }

  async move(): Promise<void> {
    const page = this.pick(this.live);
    if (!page) return this.create();
    const choice = this.random();
    const parentId = choice < 0.35 ? undefined : choice < 0.55 ? null : this.pick(this.live)!.id;
    const placement = this.placement(parentId === undefined ? page.parent_id : parentId, page.id);
    this.log.push(`move ${page.id} to ${parentId} ${JSON.stringify(placement)}`);
    await movePage(this.lane.sequelize, { pageId: page.id, access: this.access, userId: this.lane.ownerId, input: { parentId, ...placement }, locale });
  }

  async trash(): Promise<void> {
    const page = this.pick(this.live);
    if (!page) return this.create();
    const mode = this.random() < 0.5 ? 'promote' : 'subtree';
    this.log.push(`trash ${page.id} ${mode}`);
    await trashPage(this.lane.sequelize, { pageId: page.id, access: this.access, userId: this.lane.ownerId, mode });
  }

  async restore(): Promise<void> {
    const page = this.pick(this.trashed);
    if (!page) return this.trash();
    this.log.push(`restore ${page.id}`);
    await restorePage(this.lane.sequelize, { pageId: page.id, access: this.access });
  }

  async purge(): Promise<void> {
    const page = this.pick(this.trashed);
    if (!page) return this.trash();
    this.log.push(`purge ${page.id}`);
    await purgePage(this.lane.sequelize, page.id, { dataDir: '/nonexistent' });
  }

  async step(): Promise<void> {
    const choice = this.random();
    try {
      if (choice < 0.25) await this.create();
      else if (choice < 0.55) await this.move();
      else if (choice < 0.75) await this.trash();
      else if (choice < 0.92) await this.restore();
      else await this.purge();
    } catch (error) {
      if (!(error instanceof ApiError && REFUSALS.has(error.code))) throw error;
      this.log.push(`  refused: ${error.code}`);
    }
    await this.refresh();
  }

  /** Every trashed page comes back, in random order, and the tree stays sound. */
  async restoreEverything(): Promise<void> {
    for (let page = this.pick(this.trashed); page; page = this.pick(this.trashed)) {
      this.log.push(`final restore ${page.id}`);
      await restorePage(this.lane.sequelize, { pageId: page.id, access: this.access });
      await this.refresh();
    }
  }
}

/** parent and sibling rank of every page: the shape of the tree, independent of key values. */
function treeShape(rows: readonly TreeSnapshotRow[]): Map<string, string> {
  const shape = new Map<string, string>();
  const groups = new Map<string | null, TreeSnapshotRow[]>();
  for (const row of rows) groups.set(row.parent_id, [...(groups.get(row.parent_id) ?? []), row]);
  for (const [parentId, group] of groups) {
    group.sort((a, b) => (a.position < b.position ? -1 : 1)).forEach((row, rank) => shape.set(row.id, `${parentId}#${rank}`));
  }
  return shape;
}

describe('page tree properties', () => {
  let instance: TestInstance;
  let lanes: Lane[];

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    const users = await signInUsers(instance, 1);
    lanes = Array.from({ length: LANES }, () => ({ sequelize: instance.services.sequelize, ownerId: users[0]!.user.id }));
    console.log(`page tree property seed: ${masterSeed} (replay with TREE_PROPERTY_SEED=${masterSeed})`);
  });
  after(() => instance.close());

  async function newSequence(lane: Lane, seed: number): Promise<Sequence> {
    const pond = await seedSharedPond(lane.ownerId);
    const access = (await subjectAccessTo(lane.sequelize, { userId: lane.ownerId, signedIn: true, isSiteAdmin: false }, pond.id))!;
    return new Sequence(lane, pond, access, seed);
  }

  async function runLanes(count: number, run: (lane: Lane, seed: number) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      lanes.map(async (lane) => {
        while (next < count) {
          const seed = masterSeed + next;
          next += 1;
          try {
            await run(lane, seed);
          } catch (error) {
            throw new Error(`failed with sequence seed ${seed} (master seed ${masterSeed}): ${(error as Error).message}`, { cause: error });
          }
        }
      }),
    );
  }

  test(`${SEQUENCES} random sequences keep the tree sound after every step, and every trashed page restores`, async () => {
    await runLanes(SEQUENCES, async (lane, seed) => {
      const sequence = await newSequence(lane, seed);
      const initial = 2 + Math.floor(sequence.random() * 5);
      for (let index = 0; index < initial; index += 1) await sequence.create();
      await sequence.refresh();
      for (let step = 0; step < STEPS; step += 1) await sequence.step();
      await sequence.restoreEverything();
      assert.equal(sequence.trashed.length, 0);
    });
  });

  test('restoring the pages of trashed subtrees in any order rebuilds the same tree', async () => {
    await runLanes(Math.ceil(SEQUENCES / 5), async (lane, seed) => {
      const sequence = await newSequence(lane, seed ^ 0x5bd1e995);
      const size = 6 + Math.floor(sequence.random() * 8);
      for (let index = 0; index < size; index += 1) {
        try {
          await sequence.create();
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 'page_depth_exceeded')) throw error;
        }
        await sequence.refresh();
      }
      const before = treeShape(sequence.rows);
      const trashes = 1 + Math.floor(sequence.random() * 4);
      for (let index = 0; index < trashes; index += 1) {
        const page = sequence.pick(sequence.live);
        if (!page) break;
        sequence.log.push(`trash ${page.id} subtree`);
        await trashPage(lane.sequelize, { pageId: page.id, access: sequence.access, userId: lane.ownerId, mode: 'subtree' });
        await sequence.refresh();
      }
      await sequence.restoreEverything();
      assert.deepEqual(treeShape(sequence.rows), before, sequence.log.join('\n'));
    });
  });
});
