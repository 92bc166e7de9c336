/**
 * Who may do what with comments (spec: Comment rules), as one table: every role × the pond's
 * `commentPolicy` × every action, on a page the role can read and on one hidden from everyone
 * but the pond's admins. Each cell is the status (and error code) the action answers.
 *
 * Roles: the pond admin (owner), a pond editor, a pond reader, a signed-in non-member with a
 * page-scope reader grant, an anonymous caller (the pond is public) and a Site Admin who is no
 * member. The rules themselves (threads, bodies, deletion, views): commentRules.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from '../models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { commentRow, seedComment, setCommentPolicy } from '../testing/commentFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { signInUsers } from '../testing/pondTestSetup.ts';
import { TestClient, type TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const ROLES = ['pondAdmin', 'editor', 'reader', 'grantee', 'anonymous', 'siteAdmin'] as const;
type Role = (typeof ROLES)[number];
const ACTIONS = ['list', 'create', 'reply', 'edit', 'delete', 'resolve', 'reopen'] as const;
type Action = (typeof ACTIONS)[number];
type Policy = 'readers' | 'editors';

const SUCCESS: Record<Action, string> = { list: '200', create: '201', reply: '201', edit: '200', delete: '204', resolve: '200', reopen: '200' };

/** Who may write comments under each policy (reading is everyone's on the readable page). */
const MAY_COMMENT: Record<Policy, readonly Role[]> = {
  readers: ['pondAdmin', 'editor', 'reader', 'grantee', 'siteAdmin'],
  editors: ['pondAdmin', 'editor', 'siteAdmin'],
};
/** Only they see the hidden page (admins bypass every deny). */
const SEES_HIDDEN: readonly Role[] = ['pondAdmin', 'siteAdmin'];

function expectedOnReadable(role: Role, policy: Policy, action: Action): string {
  if (action === 'list' || MAY_COMMENT[policy].includes(role)) return SUCCESS[action];
  return role === 'anonymous' ? '401 unauthenticated' : '403 forbidden';
}

function expectedOnHidden(role: Role, policy: Policy, action: Action): string {
  return SEES_HIDDEN.includes(role) ? expectedOnReadable(role, policy, action) : '404 not_found';
}

function outcome(response: TestResponse): string {
  return response.status < 400 ? String(response.status) : `${response.status} ${response.body?.error?.code}`;
}

let instance: TestInstance;
const clients = {} as Record<Role, TestClient>;
const userIds = {} as Record<Exclude<Role, 'anonymous'>, string>;

before(async () => {
  instance = await startTestInstance();
  clients.siteAdmin = await completeSetup(instance);
  userIds.siteAdmin = (await clients.siteAdmin.get('/users/me')).body.id;
  const [owner, editor, reader, grantee] = await signInUsers(instance, 4);
  for (const [role, person] of [['pondAdmin', owner], ['editor', editor], ['reader', reader], ['grantee', grantee]] as const) {
    clients[role] = person!.client;
    userIds[role] = person!.user.id;
  }
  clients.anonymous = new TestClient(instance.baseUrl);
});

after(() => instance.close());

interface Scene {
  readable: Page;
  hidden: Page;
}

/** A public pond with the policy: editor and reader pond-wide, the grantee on the readable page only; the hidden page denied to all signed-in users and the public. */
async function sceneFor(policy: Policy): Promise<Scene> {
  const pond = await seedSharedPond(userIds.pondAdmin);
  await seedGrant(pond.id, { subject: { type: 'user', id: userIds.editor }, role: 'editor' });
  await seedGrant(pond.id, { subject: { type: 'user', id: userIds.reader }, role: 'reader' });
  await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
  await setCommentPolicy(instance, pond.id, policy);
  const readable = await seedPage(pond.id, 'Readable');
  const hidden = await seedPage(pond.id, 'Hidden');
  await seedGrant(pond.id, { subject: { type: 'user', id: userIds.grantee }, role: 'reader', scope: { type: 'page', id: readable.id } });
  for (const subject of [{ type: 'signed-in' }, { type: 'public' }] as const) {
    await seedGrant(pond.id, { subject, role: 'reader', scope: { type: 'page', id: hidden.id }, effect: 'deny' });
  }
  return { readable, hidden };
}

/** Runs every action once as `role` on `page`, on comments seeded for it; answers each outcome. */
async function actAs(role: Role, page: Page): Promise<Record<Action, string>> {
  const client = clients[role];
  // Own comments for edit and delete (the admin's for an anonymous caller, who owns none).
  const author = role === 'anonymous' ? userIds.pondAdmin : userIds[role];
  const thread = await seedComment(instance, page, userIds.pondAdmin);
  const resolved = await seedComment(instance, page, userIds.pondAdmin, { resolved: true });
  const toEdit = await seedComment(instance, page, author);
  const toDelete = await seedComment(instance, page, author);
  const requests: Record<Action, () => Promise<TestResponse>> = {
    list: () => client.get(`/pages/${page.id}/comments?status=all`),
    create: () => client.post(`/pages/${page.id}/comments`, { body: `New comment by ${role}` }),
    reply: () => client.post(`/pages/${page.id}/comments`, { body: `Reply by ${role}`, parentId: thread }),
    edit: () => client.patch(`/comments/${toEdit}`, { body: `Edited by ${role}` }),
    delete: () => client.request('DELETE', `/comments/${toDelete}`),
    resolve: () => client.post(`/comments/${thread}/resolve`),
    reopen: () => client.post(`/comments/${resolved}/reopen`),
  };
  const outcomes = {} as Record<Action, string>;
  for (const action of ACTIONS) outcomes[action] = outcome(await requests[action]());
  // What a refused action answered, it also left undone.
  const [editedRow, deletedRow, threadRow, reopenedRow] = await Promise.all([toEdit, toDelete, thread, resolved].map((id) => commentRow(instance, id)));
  assert.equal(editedRow!.edited_at !== null, outcomes.edit === SUCCESS.edit, `${role}: edit ${outcomes.edit}`);
  assert.equal(deletedRow === undefined, outcomes.delete === SUCCESS.delete, `${role}: delete ${outcomes.delete}`);
  assert.equal(threadRow!.resolved_at !== null, outcomes.resolve === SUCCESS.resolve, `${role}: resolve ${outcomes.resolve}`);
  assert.equal(reopenedRow!.resolved_at === null, outcomes.reopen === SUCCESS.reopen, `${role}: reopen ${outcomes.reopen}`);
  return outcomes;
}

for (const policy of ['readers', 'editors'] as const) {
  describe(`commentPolicy ${policy}`, () => {
    let scene: Scene;
    before(async () => {
      scene = await sceneFor(policy);
    });

    test('on a page every role can read: list for all; writes by those the policy allows, 401 anonymous, 403 otherwise', async () => {
      const actual: Record<string, Record<Action, string>> = {};
      const expected: Record<string, Record<Action, string>> = {};
      for (const role of ROLES) {
        actual[role] = await actAs(role, scene.readable);
        expected[role] = Object.fromEntries(ACTIONS.map((action) => [action, expectedOnReadable(role, policy, action)])) as Record<Action, string>;
      }
      assert.deepEqual(actual, expected);
    });

    test('on a page hidden by a deny: 404 for every action of everyone but the pond admin and the Site Admin', async () => {
      const actual: Record<string, Record<Action, string>> = {};
      const expected: Record<string, Record<Action, string>> = {};
      for (const role of ROLES) {
        actual[role] = await actAs(role, scene.hidden);
        expected[role] = Object.fromEntries(ACTIONS.map((action) => [action, expectedOnHidden(role, policy, action)])) as Record<Action, string>;
      }
      assert.deepEqual(actual, expected);
    });

    test('the list tells the caller what it may do: canComment and canResolve follow the policy', async () => {
      for (const role of ROLES) {
        const response = await clients[role].get(`/pages/${scene.readable.id}/comments`);
        assert.equal(response.status, 200, response.text);
        const may = MAY_COMMENT[policy].includes(role);
        assert.deepEqual({ canComment: response.body.canComment, canResolve: response.body.canResolve }, { canComment: may, canResolve: may }, role);
      }
    });
  });
}

test('a missing comment, a malformed id and a missing page answer 404 to everyone, anonymous included', async () => {
  const missing = '00000000-0000-4000-8000-000000000000';
  for (const role of ['anonymous', 'reader', 'siteAdmin'] as const) {
    const client = clients[role];
    for (const id of [missing, 'not-a-uuid']) {
      assert.equal(outcome(await client.patch(`/comments/${id}`, { body: 'x' })), '404 not_found', `${role} PATCH ${id}`);
      assert.equal(outcome(await client.request('DELETE', `/comments/${id}`)), '404 not_found', `${role} DELETE ${id}`);
      assert.equal(outcome(await client.post(`/comments/${id}/resolve`)), '404 not_found', `${role} resolve ${id}`);
      assert.equal(outcome(await client.post(`/comments/${id}/reopen`)), '404 not_found', `${role} reopen ${id}`);
      assert.equal(outcome(await client.get(`/pages/${id}/comments`)), '404 not_found', `${role} list ${id}`);
      assert.equal(outcome(await client.post(`/pages/${id}/comments`, { body: 'x' })), '404 not_found', `${role} create ${id}`);
    }
  }
});
