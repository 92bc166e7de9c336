/**
 * Access rules through HTTP: listing, creating (structural and referential validation,
 * uniqueness, personal ponds) and deleting grants (owner and last-admin rules), the enriched
 * access-rule view in German and English, and the effective-permissions explanation for a
 * user, all signed-in users and the public, with and without a page.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, Grant, Pond, type Label, type Page } from '../models/index.ts';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits, waitForLockWaiter } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** Test cleanup behind the commands' back: drop the rows and the cached access data, as seeding does. */
async function dropGrants(ids: string[]): Promise<void> {
  await Grant.destroy({ where: { id: ids } });
  invalidateAllPondAccess();
}

function assertError(response: { status: number; body: any; text: string }, status: number, code: string, fields?: string[]): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code);
  if (fields) assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), fields);
}

describe('grants, access rules and effective permissions', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  let owner: Awaited<ReturnType<typeof createVerifiedUser>>;
  let editor: Awaited<ReturnType<typeof createVerifiedUser>>;
  let reader: Awaited<ReturnType<typeof createVerifiedUser>>;
  let outsider: Awaited<ReturnType<typeof createVerifiedUser>>;
  let pond: Pond;
  let other: Pond;
  let team: Label;
  let intern: Label;
  let page: Page;
  let otherLabel: Label;
  let otherPage: Page;
  const anonymous = () => new TestClient(instance.baseUrl);
  const userGrant = (id: string, role = 'reader', scope: object = { type: 'pond' }, effect = 'allow') => ({ subject: { type: 'user', id }, role, scope, effect });

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
    owner = await createVerifiedUser(instance);
    editor = await createVerifiedUser(instance);
    reader = await createVerifiedUser(instance);
    outsider = await createVerifiedUser(instance);
    pond = await seedSharedPond(owner.user.id, 'Dorfteich Team');
    await seedGrant(pond.id, { subject: { type: 'user', id: editor.user.id }, role: 'editor' });
    await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader' });
    team = await seedLabel(pond.id, 'Team');
    intern = await seedLabel(pond.id, 'Intern', { parentId: team.id });
    page = await seedPage(pond.id, 'Handbook');
    other = await seedSharedPond(outsider.user.id);
    otherLabel = await seedLabel(other.id, 'Elsewhere');
    otherPage = await seedPage(other.id, 'Elsewhere page');
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  test('every grant route: 401 anonymous, 403 for readers and editors, 404 for outsiders and malformed pond ids', async () => {
    const grant = await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
    const calls: [string, string, unknown?][] = [
      ['GET', `/ponds/${pond.id}/grants`],
      ['GET', `/ponds/${pond.id}/grants/access-rules`],
      ['GET', `/ponds/${pond.id}/effective-permissions?subjectType=public`],
      ['POST', `/ponds/${pond.id}/grants`, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' }],
      ['DELETE', `/ponds/${pond.id}/grants/${grant.id}`],
    ];
    for (const [method, path, body] of calls) {
      // Admin routes ask for a session before anything else.
      assertError(await anonymous().request(method, path, { body }), 401, 'unauthenticated');
      assertError(await reader.client.request(method, path, { body }), 403, 'forbidden');
      assertError(await editor.client.request(method, path, { body }), 403, 'forbidden');
      assertError(await outsider.client.request(method, path, { body }), 404, 'not_found');
      assertError(await owner.client.request(method, path.replace(pond.id, 'not-a-uuid'), { body }), 404, 'not_found');
      assertError(await owner.client.request(method, path.replace(pond.id, MISSING_ID), { body }), 404, 'not_found');
    }
    assert.ok(await Grant.findByPk(grant.id), 'nothing was deleted');
    assert.equal(await Grant.count({ where: { pondId: pond.id, subjectType: 'signed-in' } }), 0);
    await dropGrants([grant.id]);
  });

  test('GET lists the grants as GrantViews', async () => {
    const response = await owner.client.get(`/ponds/${pond.id}/grants`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.nextCursor, null);
    const ownerGrant = response.body.items.find((item: { subject: { id?: string } }) => item.subject.id === owner.user.id);
    const row = (await Grant.findByPk(ownerGrant.id))!;
    assert.deepEqual(ownerGrant, {
      id: row.id,
      pondId: pond.id,
      subject: { type: 'user', id: owner.user.id },
      role: 'pond_admin',
      scope: { type: 'pond' },
      effect: 'allow',
      createdAt: row.createdAt.toISOString(),
      createdBy: null,
    });
    assert.equal(response.body.items.length, await Grant.count({ where: { pondId: pond.id } }));
  });

  test('POST creates label-, page- and pond-scope rules for every subject kind, audited', async () => {
    const labelRule = await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(outsider.user.id, 'reader', { type: 'label', id: intern.id }));
    assert.equal(labelRule.status, 201, labelRule.text);
    const row = (await Grant.findByPk(labelRule.body.id))!;
    assert.deepEqual(labelRule.body, {
      id: row.id,
      pondId: pond.id,
      subject: { type: 'user', id: outsider.user.id },
      role: 'reader',
      scope: { type: 'label', id: intern.id },
      effect: 'allow',
      createdAt: row.createdAt.toISOString(),
      createdBy: owner.user.id,
    });
    const audit = await AuditEntry.findOne({ where: { action: 'grant.created' }, order: [['id', 'DESC']] });
    assert.ok(audit);
    assert.equal(audit.actorId, owner.user.id);
    assert.deepEqual(audit.details, { pondId: pond.id, grantId: row.id, subject: { type: 'user', id: outsider.user.id }, role: 'reader', scope: { type: 'label', id: intern.id }, effect: 'allow' });
    const pageDeny = await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'signed-in' }, role: 'editor', scope: { type: 'page', id: page.id }, effect: 'deny' });
    assert.equal(pageDeny.status, 201, pageDeny.text);
    assert.deepEqual([pageDeny.body.subject, pageDeny.body.scope, pageDeny.body.effect], [{ type: 'signed-in' }, { type: 'page', id: page.id }, 'deny']);
    const publicRead = await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
    assert.equal(publicRead.status, 201, publicRead.text);
    // The permission cache was invalidated: anonymous callers now see the pond (but not its members).
    assert.equal((await anonymous().get(`/ponds/${pond.id}`)).status, 200);
    assertError(await anonymous().get(`/ponds/${pond.id}/members`), 404, 'not_found');
    for (const body of [labelRule.body, pageDeny.body, publicRead.body]) {
      assert.equal((await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${body.id}`)).status, 204);
    }
    assertError(await anonymous().get(`/ponds/${pond.id}`), 404, 'not_found');
  });

  test('POST validates the structure: 400 naming the field', async () => {
    const cases: [unknown, string[]][] = [
      [userGrant(editor.user.id, 'pond_admin', { type: 'label', id: team.id }), ['role']],
      [{ subject: { type: 'signed-in' }, role: 'pond_admin', scope: { type: 'pond' }, effect: 'allow' }, ['role']],
      [{ subject: { type: 'public' }, role: 'pond_admin', scope: { type: 'pond' }, effect: 'allow' }, ['role']],
      [{ subject: { type: 'user' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' }, ['subject.id']],
      [userGrant('not-a-uuid'), ['subject.id']],
      [userGrant(editor.user.id, 'reader', { type: 'label' }), ['scope.id']],
      [userGrant(editor.user.id, 'reader', { type: 'page' }), ['scope.id']],
      [userGrant(editor.user.id, 'owner'), ['role']],
      [userGrant(editor.user.id, 'reader', { type: 'pond' }, 'maybe'), ['effect']],
      [{ subject: { type: 'group' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' }, ['subject.type']],
      [userGrant(editor.user.id, 'reader', { type: 'site' }), ['scope.type']],
    ];
    const before = await Grant.count();
    for (const [body, fields] of cases) {
      assertError(await owner.client.post(`/ponds/${pond.id}/grants`, body), 400, 'validation_failed', fields);
    }
    assert.equal(await Grant.count(), before);
  });

  test('POST validates references: the user exists, the label or page is in this pond', async () => {
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(MISSING_ID)), 400, 'validation_failed', ['subject.id']);
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(editor.user.id, 'reader', { type: 'label', id: otherLabel.id })), 400, 'validation_failed', ['scope.id']);
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(editor.user.id, 'reader', { type: 'page', id: otherPage.id })), 400, 'validation_failed', ['scope.id']);
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(editor.user.id, 'reader', { type: 'label', id: page.id })), 400, 'validation_failed', ['scope.id']);
    const german = await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(MISSING_ID), { headers: { 'accept-language': 'de' } });
    assert.match(german.body.error.details.fields[0].message, /Konto/);
  });

  test('POST: a label deleted between the reference check and the insert answers 400 scope.id, not 500', async () => {
    const doomed = await seedLabel(pond.id, 'Doomed');
    // Hold the pond row lock, so the request passes its reference check and then waits.
    const blocker = await instance.services.sequelize.transaction();
    await instance.services.sequelize.query('SELECT id FROM ponds WHERE id = :id FOR UPDATE', { replacements: { id: pond.id }, transaction: blocker });
    const pending = owner.client.post(`/ponds/${pond.id}/grants`, userGrant(reader.user.id, 'reader', { type: 'label', id: doomed.id }, 'deny'));
    await waitForLockWaiter(instance);
    await instance.services.sequelize.query('DELETE FROM labels WHERE id = :id', { replacements: { id: doomed.id }, transaction: blocker });
    await blocker.commit();
    assertError(await pending, 400, 'validation_failed', ['scope.id']);
  });

  test('POST: 409 grant_exists for the same subject, role and scope (whatever the effect); one admin in a personal pond', async () => {
    const body = userGrant(outsider.user.id, 'editor', { type: 'page', id: page.id });
    const created = await owner.client.post(`/ponds/${pond.id}/grants`, body);
    assert.equal(created.status, 201, created.text);
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, body), 409, 'grant_exists');
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, { ...body, effect: 'deny' }), 409, 'grant_exists');
    assertError(await owner.client.post(`/ponds/${pond.id}/grants`, userGrant(editor.user.id, 'editor')), 409, 'grant_exists');
    await dropGrants([created.body.id]);
    const personal = (await Pond.findOne({ where: { ownerId: owner.user.id, kind: 'personal' } }))!;
    assertError(await owner.client.post(`/ponds/${personal.id}/grants`, userGrant(editor.user.id, 'pond_admin')), 409, 'personal_pond_single_admin');
    assert.equal((await owner.client.post(`/ponds/${personal.id}/grants`, userGrant(editor.user.id, 'editor'))).status, 201);
  });

  test('DELETE: 204 and audited; 404 for a grant of another pond, a missing or malformed id', async () => {
    const grant = await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: team.id } });
    const foreign = await seedGrant(other.id, { subject: { type: 'signed-in' }, role: 'reader' });
    assertError(await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${foreign.id}`), 404, 'not_found');
    assertError(await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${MISSING_ID}`), 404, 'not_found');
    assertError(await owner.client.request('DELETE', `/ponds/${pond.id}/grants/42`), 404, 'not_found');
    assert.ok(await Grant.findByPk(foreign.id));
    const response = await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${grant.id.toUpperCase()}`);
    assert.equal(response.status, 204, response.text);
    assert.equal(await Grant.findByPk(grant.id), null);
    const audit = await AuditEntry.findOne({ where: { action: 'grant.deleted' }, order: [['id', 'DESC']] });
    assert.ok(audit);
    assert.deepEqual(audit.details, { pondId: pond.id, grantId: grant.id, subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: team.id }, effect: 'allow' });
  });

  test("DELETE keeps the owner's pond_admin grant and the last pond admin", async () => {
    const ownerGrant = (await Grant.findOne({ where: { pondId: pond.id, subjectUserId: owner.user.id, role: 'pond_admin' } }))!;
    assertError(await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${ownerGrant.id}`), 409, 'owner_membership');
    const second = await seedGrant(pond.id, { subject: { type: 'user', id: outsider.user.id }, role: 'pond_admin' });
    assert.equal((await owner.client.request('DELETE', `/ponds/${pond.id}/grants/${second.id}`)).status, 204);
    const orphan = await Pond.create({ slug: `orphan-${Date.now()}`, name: 'Orphan', kind: 'shared', ownerId: null });
    const onlyAdmin = await seedGrant(orphan.id, { subject: { type: 'user', id: owner.user.id }, role: 'pond_admin' });
    assertError(await owner.client.request('DELETE', `/ponds/${orphan.id}/grants/${onlyAdmin.id}`), 409, 'last_pond_admin');
    assert.ok(await Grant.findByPk(ownerGrant.id));
    assert.ok(await Grant.findByPk(onlyAdmin.id));
  });

  test('access rules carry subject and scope names, the pseudo subjects in German and English', async () => {
    const rules = [
      await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader', scope: { type: 'label', id: intern.id } }),
      await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: page.id } }),
    ];
    const english = await owner.client.get(`/ponds/${pond.id}/grants/access-rules`, { headers: { 'accept-language': 'en' } });
    assert.equal(english.status, 200, english.text);
    assert.equal(english.body.nextCursor, null);
    const byId = (items: any[], id: string) => items.find((item) => item.id === id);
    const ownerRule = english.body.items.find((item: any) => item.subject.id === owner.user.id);
    assert.deepEqual(ownerRule.subject, { type: 'user', id: owner.user.id, displayName: owner.credentials.displayName, username: owner.credentials.username });
    assert.deepEqual(ownerRule.scope, { type: 'pond', name: 'Dorfteich Team' });
    assert.equal(ownerRule.role, 'pond_admin');
    assert.equal(typeof ownerRule.createdAt, 'string');
    assert.deepEqual(byId(english.body.items, rules[0]!.id).subject, { type: 'signed-in', displayName: 'All signed-in users' });
    assert.deepEqual(byId(english.body.items, rules[0]!.id).scope, { type: 'label', id: intern.id, name: 'Team / Intern' });
    assert.deepEqual(byId(english.body.items, rules[1]!.id).subject, { type: 'public', displayName: 'Everyone (public, without signing in)' });
    assert.deepEqual(byId(english.body.items, rules[1]!.id).scope, { type: 'page', id: page.id, name: 'Handbook' });
    const german = await owner.client.get(`/ponds/${pond.id}/grants/access-rules`, { headers: { 'accept-language': 'de' } });
    assert.equal(byId(german.body.items, rules[0]!.id).subject.displayName, 'Alle angemeldeten Benutzer');
    assert.equal(byId(german.body.items, rules[1]!.id).subject.displayName, 'Alle (öffentlich, ohne Anmeldung)');
    assert.equal(german.body.items.length, english.body.items.length);
    await dropGrants(rules.map((rule) => rule.id));
  });

  describe('effective permissions', () => {
    const explain = (query: string, client = owner.client, headers?: Record<string, string>) =>
      client.get(`/ponds/${pond.id}/effective-permissions?${query}`, headers ? { headers } : undefined);

    test('a pond-level editor writes at level pond, the grant named; a page-scope deny decides at level page', async () => {
      const editorGrant = (await Grant.findOne({ where: { pondId: pond.id, subjectUserId: editor.user.id } }))!;
      const pondLevel = await explain(`subjectType=user&subjectId=${editor.user.id}`);
      assert.equal(pondLevel.status, 200, pondLevel.text);
      assert.deepEqual(pondLevel.body.subject, { type: 'user', id: editor.user.id, displayName: editor.credentials.displayName });
      assert.equal(pondLevel.body.page, null);
      assert.equal(pondLevel.body.admin, false);
      const { write } = pondLevel.body;
      assert.deepEqual([write.allowed, write.level, write.reason], [true, 'pond', 'grant']);
      assert.equal(write.grant.id, editorGrant.id);
      assert.deepEqual(write.grant.subject, { type: 'user', id: editor.user.id, displayName: editor.credentials.displayName, username: editor.credentials.username });
      assert.deepEqual(write.grant.scope, { type: 'pond', name: 'Dorfteich Team' });
      const deny = await seedGrant(pond.id, { subject: { type: 'user', id: editor.user.id }, role: 'reader', scope: { type: 'page', id: page.id }, effect: 'deny' });
      const onPage = await explain(`subjectType=user&subjectId=${editor.user.id}&pageId=${page.id}`);
      assert.equal(onPage.status, 200, onPage.text);
      assert.deepEqual(onPage.body.page, { id: page.id, title: 'Handbook', slug: page.slug, trashed: false });
      for (const verdict of [onPage.body.read, onPage.body.write]) {
        assert.deepEqual([verdict.allowed, verdict.level, verdict.reason, verdict.grant.id, verdict.grant.effect], [false, 'page', 'grant', deny.id, 'deny']);
        assert.deepEqual(verdict.grant.scope, { type: 'page', id: page.id, name: 'Handbook' });
      }
      await dropGrants([deny.id]);
    });

    test('pond admins and Site Admins: admin true, deciding reason pond_admin or site_admin', async () => {
      const ownerView = (await explain(`subjectType=user&subjectId=${owner.user.id}&pageId=${page.id}`)).body;
      assert.equal(ownerView.admin, true);
      assert.deepEqual([ownerView.read.allowed, ownerView.read.reason, ownerView.read.level, ownerView.read.grant.role], [true, 'pond_admin', 'pond', 'pond_admin']);
      const siteAdmin = (await explain(`subjectType=user&subjectId=${adminId}`)).body;
      assert.equal(siteAdmin.admin, true);
      assert.deepEqual([siteAdmin.write.allowed, siteAdmin.write.reason, siteAdmin.write.level, siteAdmin.write.grant], [true, 'site_admin', 'none', null]);
      // A Site Admin may also ask, for any pond.
      assert.equal((await explain('subjectType=public', admin)).status, 200);
    });

    test('all signed-in users and the public: pond grants, label grants through ancestors, closed by default', async () => {
      const signedInRead = await seedGrant(pond.id, { subject: { type: 'signed-in' }, role: 'reader' });
      const signedIn = await explain('subjectType=signed-in', owner.client, { 'accept-language': 'de' });
      assert.equal(signedIn.status, 200, signedIn.text);
      assert.deepEqual(signedIn.body.subject, { type: 'signed-in', id: null, displayName: 'Alle angemeldeten Benutzer' });
      assert.deepEqual([signedIn.body.read.allowed, signedIn.body.read.level, signedIn.body.read.grant.id], [true, 'pond', signedInRead.id]);
      assert.equal(signedIn.body.read.grant.subject.displayName, 'Alle angemeldeten Benutzer');
      assert.deepEqual(signedIn.body.write, { allowed: false, level: 'none', reason: 'no_grant', grant: null, abovePageGrant: null });
      const closed = (await explain('subjectType=public')).body;
      assert.deepEqual(closed.subject, { type: 'public', id: null, displayName: 'Everyone (public, without signing in)' });
      assert.deepEqual(closed.read, { allowed: false, level: 'none', reason: 'no_grant', grant: null, abovePageGrant: null });
      const labelled = await seedPage(pond.id, 'Labelled');
      await seedPageLabels(labelled, [intern]);
      const publicLabel = await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'label', id: team.id } });
      const onPage = (await explain(`subjectType=public&pageId=${labelled.id}`)).body;
      assert.deepEqual([onPage.read.allowed, onPage.read.level, onPage.read.grant.id, onPage.read.grant.scope.name], [true, 'label', publicLabel.id, 'Team']);
      assert.equal(onPage.write.allowed, false);
      await dropGrants([signedInRead.id, publicLabel.id]);
    });

    test('400 for a missing or superfluous subjectId, 404 for an unknown user or a page not in this pond', async () => {
      assertError(await explain('subjectType=user'), 400, 'validation_failed', ['query.subjectId']);
      assertError(await explain(`subjectType=public&subjectId=${owner.user.id}`), 400, 'validation_failed', ['query.subjectId']);
      assertError(await explain(''), 400, 'validation_failed', ['query.subjectType']);
      assertError(await explain('subjectType=group'), 400, 'validation_failed', ['query.subjectType']);
      assertError(await explain(`subjectType=user&subjectId=${MISSING_ID}`), 404, 'user_not_found');
      assertError(await explain(`subjectType=public&pageId=${MISSING_ID}`), 404, 'not_found');
      assertError(await explain(`subjectType=public&pageId=${otherPage.id}`), 404, 'not_found');
      assertError(await explain('subjectType=public&pageId=nonsense'), 404, 'not_found');
    });
  });
});
