/**
 * `POST /ponds/:id/grants/page-section` through HTTP: a rule for a page and every page inside
 * it in one step. The happy paths (a new label, then a reused one with the identical rule kept),
 * what visitors read before and after (a page-scope grant does not reach the sub-pages; the
 * label does), the explainer naming the parent page's rule on a sub-page, and the refusals
 * 400/401/403/404/409, each leaving no label, assignment or grant behind.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, Grant, Label, PageLabel, type Page, type Pond } from '../models/index.ts';
import { MAX_LABELS_PER_PAGE } from '../commands/labelCommands.ts';
import { seedGrant, seedLabel, seedPage, seedPageLabels, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

function assertError(response: { status: number; body: any; text: string }, status: number, code: string, fields?: string[]): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code);
  if (fields) assert.deepEqual(response.body.error.details.fields.map((field: { path: string }) => field.path), fields);
}

describe('a rule for a page and its sub-pages, in one step', () => {
  let instance: TestInstance;
  let owner: Awaited<ReturnType<typeof createVerifiedUser>>;
  let editor: Awaited<ReturnType<typeof createVerifiedUser>>;
  let outsider: Awaited<ReturnType<typeof createVerifiedUser>>;
  const anonymous = () => new TestClient(instance.baseUrl);
  const publicRule = (pageId: string, name = 'Handbook', extra: object = {}) => ({ pageId, label: { name }, subject: { type: 'public' }, role: 'reader', effect: 'allow', ...extra });
  const path = (pond: Pond) => `/ponds/${pond.id}/grants/page-section`;
  /** A pond with Handbook > Chapter > Section, a trashed child and a sibling outside. */
  async function tree() {
    const pond = await seedSharedPond(owner.user.id, 'Section pond');
    await seedGrant(pond.id, { subject: { type: 'user', id: editor.user.id }, role: 'editor' });
    const root = await seedPage(pond.id, 'Handbook');
    const chapter = await seedPage(pond.id, 'Chapter', { parentId: root.id });
    const section = await seedPage(pond.id, 'Section', { parentId: chapter.id });
    const trashed = await seedPage(pond.id, 'Old chapter', { parentId: root.id, trashed: true });
    const outside = await seedPage(pond.id, 'Elsewhere');
    return { pond, root, chapter, section, trashed, outside };
  }
  /** Everything the route could write in this pond, to compare before and after a refusal. */
  async function written(pond: Pond) {
    const labels = (await Label.findAll({ where: { pondId: pond.id } })).map((label) => label.id).sort();
    const assignments = (await PageLabel.findAll({ where: { pondId: pond.id } })).map((row) => `${row.pageId}:${row.labelId}`).sort();
    const grants = (await Grant.findAll({ where: { pondId: pond.id } })).map((grant) => grant.id).sort();
    return { labels, assignments, grants };
  }
  const visitorReads = async (page: Page) => (await anonymous().get(`/pages/${page.id}`)).status;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    owner = await createVerifiedUser(instance);
    editor = await createVerifiedUser(instance);
    outsider = await createVerifiedUser(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  test('creates the label, puts it on the page and every live page below it, creates the grant: visitors read the sub-pages', async () => {
    const { pond, root, chapter, section, trashed, outside } = await tree();
    // A page-scope rule opens that page only: its sub-pages stay closed.
    const pageOnly = await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: root.id }, effect: 'allow' });
    assert.equal(pageOnly.status, 201, pageOnly.text);
    assert.deepEqual([await visitorReads(root), await visitorReads(chapter), await visitorReads(section)], [200, 404, 404]);
    // The explainer says why: the rule on the page above does not reach this one.
    const explained = await owner.client.get(`/ponds/${pond.id}/effective-permissions?subjectType=public&pageId=${section.id}`);
    assert.equal(explained.status, 200, explained.text);
    assert.deepEqual([explained.body.read.allowed, explained.body.read.reason, explained.body.read.abovePageGrant?.id, explained.body.read.abovePageGrant?.scope.name], [false, 'no_grant', pageOnly.body.id, 'Handbook']);
    assert.equal(explained.body.write.abovePageGrant, null, 'the public may not edit the parent either');

    const response = await owner.client.post(path(pond), publicRule(root.id, '  Handbook  '));
    assert.equal(response.status, 201, response.text);
    const body = response.body;
    assert.equal(body.labelCreated, true);
    assert.equal(body.grantCreated, true);
    assert.deepEqual([body.label.name, body.label.parentId, body.label.depth], ['Handbook', null, 1]);
    assert.deepEqual(new Set(body.pageIds), new Set([root.id, chapter.id, section.id]), 'the trashed child and the sibling are not part of it');
    assert.equal(body.pageIds[0], root.id);
    assert.deepEqual(new Set(body.assignedPageIds), new Set(body.pageIds));
    assert.deepEqual([body.grant.subject, body.grant.role, body.grant.scope, body.grant.effect], [{ type: 'public' }, 'reader', { type: 'label', id: body.label.id }, 'allow']);
    const assigned = (await PageLabel.findAll({ where: { labelId: body.label.id } })).map((row) => row.pageId).sort();
    assert.deepEqual(assigned, [root.id, chapter.id, section.id].sort());
    assert.deepEqual([await visitorReads(root), await visitorReads(chapter), await visitorReads(section), await visitorReads(outside), await visitorReads(trashed)], [200, 200, 200, 404, 404]);
    // The public documents follow: the sub-page's address serves its text to a visitor.
    const document = await fetch(`${instance.baseUrl}/${pond.slug}/${section.slug}`, { headers: { accept: 'text/html' } });
    assert.equal(document.status, 200);
    assert.match(await document.text(), /Section/);
    const audit = await AuditEntry.findOne({ where: { action: 'grant.created' }, order: [['createdAt', 'DESC']] });
    assert.equal((audit!.details as { grantId: string }).grantId, body.grant.id);
    assert.equal((audit!.details as { section: { labelCreated: boolean } }).section.labelCreated, true);

    // A sub-page added later: the same step again reuses the label and the identical rule.
    const appendix = await seedPage(pond.id, 'Appendix', { parentId: chapter.id });
    assert.equal(await visitorReads(appendix), 404);
    const again = await owner.client.post(path(pond), publicRule(root.id, 'handbook'));
    assert.equal(again.status, 201, again.text);
    assert.deepEqual([again.body.labelCreated, again.body.grantCreated, again.body.label.id, again.body.grant.id], [false, false, body.label.id, body.grant.id]);
    assert.deepEqual(again.body.assignedPageIds, [appendix.id]);
    assert.equal(await visitorReads(appendix), 200);
    assert.equal(await Label.count({ where: { pondId: pond.id } }), 1);
  });

  test('reuses a root label of that name that carries other pages, and a user subject with editor rights', async () => {
    const { pond, root, chapter, outside } = await tree();
    const existing = await seedLabel(pond.id, 'Team');
    await seedPageLabels(outside, [existing]);
    const response = await owner.client.post(path(pond), { pageId: chapter.id, label: { name: 'TEAM' }, subject: { type: 'user', id: outsider.user.id }, role: 'editor', effect: 'allow' });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual([response.body.labelCreated, response.body.label.id, response.body.label.name], [false, existing.id, 'Team']);
    // The outsider now edits the chapter and its section, and the page that had the label already; not the root.
    const readable = async (page: Page) => (await outsider.client.get(`/pages/${page.id}`)).status;
    assert.deepEqual([await readable(chapter), await readable(outside), await readable(root)], [200, 200, 404]);
    assert.equal((await outsider.client.get(`/pages/${chapter.id}`)).body.canWrite, true);
  });

  test('the views say what the public reads: publicRead on a page, publicReading on the pond', async () => {
    const { pond, root, chapter, outside } = await tree();
    const state = async () => [(await owner.client.get(`/ponds/${pond.id}`)).body.publicReading, (await owner.client.get(`/pages/${root.id}`)).body.publicRead, (await owner.client.get(`/pages/${chapter.id}`)).body.publicRead];
    assert.deepEqual(await state(), [null, false, false]);
    // A public rule on a label that no live page carries opens nothing.
    const empty = await seedLabel(pond.id, 'Nobody');
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'label', id: empty.id } });
    assert.deepEqual(await state(), [null, false, false]);
    await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: root.id }, effect: 'allow' });
    assert.deepEqual(await state(), ['pages', true, false]);
    const whole = await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
    assert.equal(whole.status, 201, whole.text);
    assert.deepEqual(await state(), ['pond', true, true]);
    // A deny on one page closes that page, and the pond stays public.
    await owner.client.post(`/ponds/${pond.id}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: outside.id }, effect: 'deny' });
    assert.equal((await owner.client.get(`/pages/${outside.id}`)).body.publicRead, false);
    assert.equal((await editor.client.get(`/ponds/${pond.id}`)).body.publicReading, 'pond', 'the same for every member');
  });

  test('refusals: 401 anonymous, 403 editor, 404 outsider and unknown pages, 400 validation, 409 conflicting rule; nothing half-written', async () => {
    const { pond, root, chapter, section, trashed } = await tree();
    const other = await seedSharedPond(outsider.user.id);
    const foreignPage = await seedPage(other.id, 'Not here');
    const before = await written(pond);

    assertError(await anonymous().post(path(pond), publicRule(root.id)), 401, 'unauthenticated');
    assertError(await editor.client.post(path(pond), publicRule(root.id)), 403, 'forbidden');
    assertError(await outsider.client.post(path(pond), publicRule(root.id)), 404, 'not_found');
    assertError(await owner.client.post(path(pond), publicRule(MISSING_ID)), 404, 'not_found');
    assertError(await owner.client.post(path(pond), publicRule(foreignPage.id)), 404, 'not_found');
    assertError(await owner.client.post(path(pond), publicRule(trashed.id)), 404, 'page_trashed');
    assertError(await owner.client.post(path(pond), publicRule('not-an-id')), 400, 'validation_failed', ['pageId']);
    assertError(await owner.client.post(path(pond), publicRule(root.id, 'A/B')), 400, 'validation_failed', ['label.name']);
    assertError(await owner.client.post(path(pond), publicRule(root.id, '   ')), 400, 'validation_failed', ['label.name']);
    assertError(await owner.client.post(path(pond), publicRule(root.id, 'Handbook', { role: 'pond_admin' })), 400, 'validation_failed', ['role']);
    assertError(await owner.client.post(path(pond), publicRule(root.id, 'Handbook', { label: { name: 'Handbook', color: 'blue' } })), 400, 'validation_failed', ['label.color']);
    assertError(await owner.client.post(path(pond), publicRule(root.id, 'Handbook', { subject: { type: 'user', id: MISSING_ID } })), 400, 'validation_failed', ['subject.id']);
    assert.deepEqual(await written(pond), before, 'no refusal wrote anything');

    // A refusal after the label was made and put on some pages: a sub-page is full of labels.
    const fillers = [];
    for (let index = 0; index < MAX_LABELS_PER_PAGE; index += 1) fillers.push(await seedLabel(pond.id, `Filler ${index}`));
    await seedPageLabels(chapter, fillers);
    const full = await written(pond);
    assertError(await owner.client.post(path(pond), publicRule(root.id, 'Brand new')), 400, 'validation_failed', ['pageId']);
    assert.deepEqual(await written(pond), full, 'no label "Brand new", no assignment, no grant');
    assert.equal(await Label.count({ where: { pondId: pond.id, name: 'Brand new' } }), 0);

    // A reused label whose rule for this subject and role has the other effect: 409, the assignments roll back.
    const denied = await seedLabel(pond.id, 'Closed');
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'label', id: denied.id }, effect: 'deny' });
    const withDeny = await written(pond);
    const conflict = await owner.client.post(path(pond), publicRule(section.id, 'Closed'));
    assertError(conflict, 409, 'grant_exists');
    assert.deepEqual(await written(pond), withDeny, 'the label went on no page');
  });
});
