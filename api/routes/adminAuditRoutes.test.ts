/**
 * `GET /admin/system/audit`: Site Admins only; newest first; each filter (actor by id, by
 * username and by a deleted account's former name; action exact and as a `*` prefix with
 * LIKE's wildcards taken literally; from inclusive, to exclusive); paging with the keyset
 * cursor hands out every matching entry exactly once, also across entries that share a
 * timestamp, and while new entries are added; the filters combined (username, action, range);
 * a cursor we never handed out answers 400 naming `query.cursor`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { User } from '../models/index.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { assertError, assertFieldError } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

interface Item {
  id: string;
  action: string;
  at: string;
  actor: { id: string | null; username: string | null } | null;
  ip: string | null;
  details: Record<string, unknown>;
}

const T0 = Date.parse('2030-01-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

describe('admin audit log', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let alice: { id: string; username: string };
  let bob: { id: string; username: string };

  /** Appends an entry as of `createdAt` (the log is append-only; inserting is all it allows). */
  async function seed(action: string, createdAt: string, actor: { id: string; username: string } | null, details: Record<string, unknown> = {}) {
    await instance.services.sequelize.query(`INSERT INTO audit_entries (actor_id, actor_name, action, details, ip, created_at) VALUES ($1, $2, $3, $4, '203.0.113.7', $5)`, {
      bind: [actor?.id ?? null, actor?.username ?? null, action, JSON.stringify(details), createdAt],
    });
  }

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    alice = (await createVerifiedUser(instance)).user;
    bob = (await createVerifiedUser(instance)).user;
    // Enough entries for the default limit to bite, older than the ones below.
    for (let index = 0; index < 40; index += 1) await seed('seed.filler', at(-1000 + index), null, { index });
    // Far in the future, so they come first and in a known order, ahead of what setup and sign-ups wrote.
    await seed('api.token_created', at(0), alice, { tokenId: 't1' });
    await seed('api.write', at(1), alice, { method: 'POST' });
    await seed('api.token_revoked', at(2), bob, { tokenId: 't2' });
    await seed('apixwrite', at(3), bob);
    await seed('admin_user.x', at(4), null);
    await seed('adminXuser.x', at(5), null);
    // Three entries in one instant: only the id tells them apart.
    for (let index = 0; index < 3; index += 1) await seed('backup.run_triggered', at(6), alice, { index });
  });
  after(() => instance.close());

  const list = async (query: string, client = admin) => {
    const response = await client.get(`/admin/system/audit${query ? `?${query}` : ''}`);
    assert.equal(response.status, 200, response.text);
    return response.body as { items: Item[]; nextCursor: string | null };
  };
  const actionsOf = (items: Item[]) => items.map((item) => item.action);

  test('Site Admins only: 401 without a session, 403 for a signed-in user', async () => {
    assertError(await new TestClient(instance.baseUrl).get('/admin/system/audit'), 401, 'unauthenticated');
    const { client } = await createVerifiedUser(instance);
    assertError(await client.get('/admin/system/audit'), 403, 'forbidden');
  });

  test('newest first, in the view\'s shape; ties in time by id, newest first', async () => {
    const { items, nextCursor } = await list('limit=4');
    assert.equal(items.length, 4);
    assert.ok(nextCursor);
    assert.deepEqual(actionsOf(items), ['backup.run_triggered', 'backup.run_triggered', 'backup.run_triggered', 'adminXuser.x']);
    assert.deepEqual(items.slice(0, 3).map((item) => item.details.index), [2, 1, 0]);
    assert.deepEqual(Object.keys(items[0]!).sort(), ['action', 'actor', 'at', 'details', 'id', 'ip']);
    assert.deepEqual(items[0]!.actor, { id: alice.id, username: alice.username });
    assert.equal(items[0]!.at, at(6));
    assert.equal(items[0]!.ip, '203.0.113.7');
    assert.equal(items[3]!.actor, null);
    assert.match(items[0]!.id, /^\d+$/);
    assert.equal((await list('')).items.length, 50, 'default limit 50');
  });

  test('actor: by id, by username in any case, and by the name a deleted account\'s entries kept', async () => {
    const byId = await list(`actor=${alice.id}&from=${at(0)}`);
    assert.deepEqual(actionsOf(byId.items), ['backup.run_triggered', 'backup.run_triggered', 'backup.run_triggered', 'api.write', 'api.token_created']);
    const byName = await list(`actor=${bob.username.toUpperCase()}&from=${at(0)}`);
    assert.deepEqual(actionsOf(byName.items), ['apixwrite', 'api.token_revoked']);
    const withSignUp = await list(`actor=${bob.username}`);
    assert.ok(withSignUp.items.length > 2, 'also the entries from before the seeded ones');
    assert.ok(withSignUp.items.every((item) => item.actor?.id === bob.id));
    // Deleting scrubs the username; old entries keep the name at the time.
    await User.update({ username: `deleted-${bob.id}`, status: 'deleted' }, { where: { id: bob.id } });
    assert.deepEqual(actionsOf((await list(`actor=${bob.username}&from=${at(0)}`)).items), ['apixwrite', 'api.token_revoked']);
    assert.deepEqual((await list('actor=nobody-at-all')).items, []);
    assert.deepEqual((await list('actor=00000000-0000-4000-8000-000000000000')).items, []);
  });

  test('action: exact, or a prefix ending in *; LIKE\'s wildcards in it are taken literally', async () => {
    assert.deepEqual(actionsOf((await list('action=api.write')).items), ['api.write']);
    assert.deepEqual(actionsOf((await list('action=api')).items), [], 'exact means exact');
    assert.deepEqual(actionsOf((await list(`action=${encodeURIComponent('api.*')}`)).items), ['api.token_revoked', 'api.write', 'api.token_created']);
    assert.deepEqual(actionsOf((await list(`action=${encodeURIComponent('admin_user*')}`)).items), ['admin_user.x'], '_ is no wildcard');
    assert.deepEqual(actionsOf((await list(`action=${encodeURIComponent('api%*')}`)).items), [], '% is no wildcard');
    const everything = await list(`action=${encodeURIComponent('*')}&limit=200`);
    assert.deepEqual(everything.items.length, (await list('limit=200')).items.length, 'a bare * matches all');
  });

  test('time range: from inclusive, to exclusive; a date means midnight UTC; combined with the other filters', async () => {
    assert.deepEqual(actionsOf((await list(`from=${at(1)}&to=${at(3)}`)).items), ['api.token_revoked', 'api.write']);
    assert.deepEqual(actionsOf((await list(`from=${encodeURIComponent('2030-01-01T01:04:00+01:00')}&to=${at(5)}`)).items), ['admin_user.x']);
    const beforeSeeds = (await list('to=2030-01-01&limit=200')).items;
    assert.ok(beforeSeeds.length > 0 && beforeSeeds.every((item) => item.at < at(0)));
    assert.deepEqual(actionsOf((await list(`actor=${alice.id}&action=${encodeURIComponent('api.*')}&to=${at(1)}`)).items), ['api.token_created']);
    assert.deepEqual((await list(`from=${at(5)}&to=${at(5)}`)).items, []);
  });

  test('paging: following nextCursor hands out every entry exactly once, in order, across ties', async () => {
    const all = (await instance.services.sequelize.query<{ id: string }>('SELECT id::text AS id FROM audit_entries ORDER BY created_at DESC, id DESC', { type: QueryTypes.SELECT })).map((row) => row.id);
    assert.ok(all.length > 50);
    for (const limit of [1, 2, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Item[]; nextCursor: string | null } = await list(`limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(page.items.length <= limit);
        seen.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, all, `limit ${limit}`);
    }
    // Filters hold across pages.
    const first = await list(`action=backup.run_triggered&limit=2`);
    const second = await list(`action=backup.run_triggered&limit=2&cursor=${first.nextCursor}`);
    assert.deepEqual([...first.items, ...second.items].map((item) => item.details.index), [2, 1, 0]);
    assert.equal(second.nextCursor, null);
  });

  test('actor by username, action and time range combined: only entries meeting all three', async () => {
    const name = alice.username.toUpperCase();
    assert.deepEqual(actionsOf((await list(`actor=${name}&action=${encodeURIComponent('api.*')}&from=${at(0)}&to=${at(2)}`)).items), ['api.write', 'api.token_created']);
    assert.deepEqual(actionsOf((await list(`actor=${name}&action=api.write&from=${at(0)}&to=${at(2)}`)).items), ['api.write']);
    assert.deepEqual(actionsOf((await list(`actor=${name}&action=${encodeURIComponent('api.*')}&from=${at(1)}&to=${at(7)}`)).items), ['api.write'], 'the range cuts off t1');
    assert.deepEqual((await list(`actor=${name}&action=api.token_revoked&from=${at(0)}`)).items, [], "bob's action is not alice's");
    // By username, the newest of both ways to match (the account's current name, the name kept) come in order, across pages.
    const first = await list(`actor=${alice.username}&from=${at(0)}&limit=2`);
    const second = await list(`actor=${alice.username}&from=${at(0)}&limit=2&cursor=${first.nextCursor}`);
    const third = await list(`actor=${alice.username}&from=${at(0)}&limit=2&cursor=${second.nextCursor}`);
    assert.deepEqual([...first.items, ...second.items, ...third.items].map((item) => [item.action, item.details.index ?? null]), [
      ['backup.run_triggered', 2], ['backup.run_triggered', 1], ['backup.run_triggered', 0], ['api.write', null], ['api.token_created', null],
    ]);
    assert.equal(third.nextCursor, null);
  });

  test('paging is stable while entries are added: the next page goes on where the last ended, nothing twice, nothing missed', async () => {
    const filter = `action=${encodeURIComponent('paging.*')}`;
    for (let index = 0; index < 5; index += 1) await seed('paging.old', at(100 + index), alice, { index });
    const first = await list(`${filter}&limit=2`);
    assert.deepEqual(first.items.map((item) => item.details.index), [4, 3]);
    // Newer entries arrive meanwhile (they belong before the first page), one in the same instant as the page's last (a later id: before it too).
    await seed('paging.new', at(200), alice, { index: 'new' });
    await seed('paging.tie', at(103), alice, { index: 'tie' });
    const second = await list(`${filter}&limit=2&cursor=${first.nextCursor}`);
    const third = await list(`${filter}&limit=2&cursor=${second.nextCursor}`);
    assert.deepEqual([...second.items, ...third.items].map((item) => item.details.index), [2, 1, 0]);
    assert.equal(third.nextCursor, null);
    // A fresh first page shows the new ones on top.
    assert.deepEqual((await list(`${filter}&limit=50`)).items.map((item) => item.details.index), ['new', 4, 'tie', 3, 2, 1, 0]);
  });

  test('bad input: a cursor we never handed out, a limit out of range, a date that is none answer 400 naming the field', async () => {
    const forged = Buffer.from(JSON.stringify(['2030-01-01 00:00:00', '-1'])).toString('base64url');
    for (const cursor of ['nonsense', forged, Buffer.from(JSON.stringify(['2030-01-01 00:00:00', '99999999999999999999'])).toString('base64url')]) {
      assertFieldError(await admin.get(`/admin/system/audit?cursor=${cursor}`), 'query.cursor');
    }
    assertFieldError(await admin.get('/admin/system/audit?limit=0'), 'query.limit');
    assertFieldError(await admin.get('/admin/system/audit?limit=201'), 'query.limit');
    assertFieldError(await admin.get('/admin/system/audit?from=yesterday'), 'query.from');
    assertFieldError(await admin.get('/admin/system/audit?to=0000-01-01'), 'query.to');
    assertFieldError(await admin.get('/admin/system/audit?action='), 'query.action');
    assert.equal((await admin.get('/admin/system/audit?limit=200')).status, 200);
  });
});
