/**
 * Ponds through HTTP: the caller's list, creating a shared pond with its owner grant, reading,
 * updating name, slug, fonts and settings; the font catalog; personal pond slugs derived from
 * the username. Trashing and restoring (and the trashed-pond listing) are in pondTrashRoutes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { freePondSlug } from '../commands/accountCreator.ts';
import { Grant, Pond, User } from '../models/index.ts';
import { FONT_CATALOG } from '../ponds/fontCatalog.ts';
import { seedGrant, seedPage } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits, waitForLockWaiter } from '../testing/fixtures.ts';
import { assertError, auditOf, fieldPaths, pondApiHelpers } from '../testing/pondTestSetup.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const DEFAULT_SETTINGS = { commentPolicy: 'readers', apiEnabled: false, mcpEnabled: false, sidebarView: 'tree' };
const DEFAULT_FONTS = { body: 'system-sans', heading: 'system-sans', code: 'system-mono' };
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('ponds', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  const { ownerWithPond, memberOf } = pondApiHelpers(() => instance);

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  describe('GET /ponds', () => {
    test('anonymously answers 401 unauthenticated', async () => {
      assertError(await new TestClient(instance.baseUrl).get('/ponds'), 401, 'unauthenticated');
    });

    test('lists exactly the personal pond of a new user, with role pond_admin', async () => {
      await createVerifiedUser(instance); // someone else's personal pond must not show up
      const { client, user } = await createVerifiedUser(instance);
      const pond = await Pond.findOne({ where: { ownerId: user.id, kind: 'personal' } });
      assert.ok(pond);
      const response = await client.get('/ponds');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, {
        items: [{ id: pond.id, slug: pond.slug, name: pond.name, kind: 'personal', role: 'pond_admin', trashedAt: null }],
        nextCursor: null,
      });
    });

    test('shows each membership with its effective role; a page grant alone gives role null', async () => {
      const { pond: readerPond } = await ownerWithPond({ name: 'B reader pond' });
      const { pond: editorPond } = await ownerWithPond({ name: 'A editor pond' });
      const { pond: pagePond, user: pagePondOwner } = await ownerWithPond({ name: 'C page pond' });
      const { pond: strangerPond } = await ownerWithPond({ name: 'D not mine' });
      const { client, user } = await createVerifiedUser(instance);
      await seedGrant(readerPond.id, { subject: { type: 'user', id: user.id }, role: 'reader' });
      await seedGrant(editorPond.id, { subject: { type: 'user', id: user.id }, role: 'editor' });
      const page = await seedPage(pagePond.id, 'Shared page', { createdBy: pagePondOwner.id });
      await seedGrant(pagePond.id, { subject: { type: 'user', id: user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
      // A pond-level deny of editor leaves a reader.
      await seedGrant(readerPond.id, { subject: { type: 'user', id: user.id }, role: 'editor', effect: 'deny' });

      const response = await client.get('/ponds');
      assert.equal(response.status, 200, response.text);
      const shared = response.body.items.filter((item: { kind: string }) => item.kind === 'shared');
      assert.deepEqual(
        shared.map((item: { id: string; name: string; role: string | null }) => [item.id, item.name, item.role]),
        [
          [editorPond.id, 'A editor pond', 'editor'],
          [readerPond.id, 'B reader pond', 'reader'],
          [pagePond.id, 'C page pond', null],
        ],
      );
      assert.ok(!response.body.items.some((item: { id: string }) => item.id === strangerPond.id));
    });
  });

  describe('POST /ponds', () => {
    test('anonymously answers 401 unauthenticated and creates nothing', async () => {
      const before = await Pond.count();
      assertError(await new TestClient(instance.baseUrl).post('/ponds', { name: 'Nobody' }), 401, 'unauthenticated');
      assert.equal(await Pond.count(), before);
    });

    test('creates a shared pond owned by the caller, with their pond_admin grant and an audit entry', async () => {
      const { client, user, credentials } = await createVerifiedUser(instance);
      const response = await client.post('/ponds', { name: '  Über Größe & Maß  ' });
      assert.equal(response.status, 201, response.text);
      const view = response.body;
      assert.equal(typeof view.createdAt, 'string');
      assert.equal(typeof view.updatedAt, 'string');
      assert.deepEqual(view, {
        id: view.id,
        slug: 'ueber-groesse-mass',
        name: 'Über Größe & Maß',
        kind: 'shared',
        ownerId: user.id,
        owner: { id: user.id, username: credentials.username, displayName: credentials.displayName },
        settings: DEFAULT_SETTINGS,
        fonts: DEFAULT_FONTS,
        role: 'pond_admin',
        capabilities: { write: true, admin: true },
        publicReading: null,
        trashedAt: null,
        createdAt: view.createdAt,
        updatedAt: view.updatedAt,
      });
      const grants = await Grant.findAll({ where: { pondId: view.id } });
      assert.equal(grants.length, 1);
      assert.deepEqual(
        { subjectType: grants[0]!.subjectType, subjectUserId: grants[0]!.subjectUserId, role: grants[0]!.role, scopeType: grants[0]!.scopeType, effect: grants[0]!.effect },
        { subjectType: 'user', subjectUserId: user.id, role: 'pond_admin', scopeType: 'pond', effect: 'allow' },
      );
      const [audit] = await auditOf('pond.created', view.id);
      assert.ok(audit, 'pond.created is audited');
      assert.equal(audit.actorId, user.id);
      assert.equal(audit.actorName, credentials.username);
      assert.equal(audit.details.slug, 'ueber-groesse-mass');
      const listing = await client.get('/ponds');
      assert.ok(listing.body.items.some((item: { id: string; role: string }) => item.id === view.id && item.role === 'pond_admin'));
    });

    test('a derived slug skips taken and reserved slugs; a name without letters gives "pond"', async () => {
      const { client } = await createVerifiedUser(instance);
      const first = await client.post('/ponds', { name: 'Garden Club' });
      const second = await client.post('/ponds', { name: 'garden club!' });
      assert.equal(first.body.slug, 'garden-club');
      assert.equal(second.body.slug, 'garden-club-2');
      // "admin" is reserved, and the setup admin's personal pond already took "admin-2".
      assert.equal((await Pond.findOne({ where: { ownerId: adminId, kind: 'personal' } }))!.slug, 'admin-2');
      assert.equal((await client.post('/ponds', { name: 'Admin' })).body.slug, 'admin-3');
      assert.equal((await client.post('/ponds', { name: '!!!' })).body.slug, 'pond');
      assert.equal((await client.post('/ponds', { name: '???' })).body.slug, 'pond-2');
    });

    test('an explicit slug that is taken answers 409 slug_taken, compared case-insensitively', async () => {
      const { client } = await createVerifiedUser(instance);
      assert.equal((await client.post('/ponds', { name: 'Team X', slug: 'team-x' })).status, 201);
      const again = await client.post('/ponds', { name: 'Other', slug: 'Team-X' });
      assertError(again, 409, 'slug_taken');
      // A row stored with capitals still blocks its lowercase twin.
      await Pond.create({ slug: 'Legacy-Slug', name: 'Legacy', kind: 'shared', ownerId: null });
      assertError(await client.post('/ponds', { name: 'Other', slug: 'legacy-slug' }), 409, 'slug_taken');
      assert.equal(await Pond.count({ where: { name: 'Other' } }), 0);
    });

    test('concurrent creates with one slug: exactly one wins, the rest answer 409 slug_taken', async () => {
      const { client } = await createVerifiedUser(instance);
      const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => client.post('/ponds', { name: `Racer ${index}`, slug: 'race-slug' })));
      assert.deepEqual(responses.map((response) => response.status).sort(), [201, 409, 409, 409, 409, 409]);
      for (const response of responses.filter((response) => response.status === 409)) assert.equal(response.body.error.code, 'slug_taken');
      assert.equal(await Pond.count({ where: { slug: 'race-slug' } }), 1);
    });

    test('losing the race on the slug index (after the check passed) answers 409 slug_taken, not 500', async () => {
      const { client } = await createVerifiedUser(instance);
      const sequelize = instance.services.sequelize;
      // An uncommitted insert is invisible to the route's check but holds the index entry.
      const blocker = await sequelize.transaction();
      await Pond.create({ slug: 'blocked-slug', name: 'Blocker', kind: 'shared', ownerId: null }, { transaction: blocker });
      const pending = client.post('/ponds', { name: 'Loser', slug: 'blocked-slug' });
      await waitForLockWaiter(instance);
      await blocker.commit();
      assertError(await pending, 409, 'slug_taken');
      assert.equal(await Pond.count({ where: { name: 'Loser' } }), 0);
    });

    test('a reserved or malformed slug answers 400 validation_failed on field slug', async () => {
      const { client } = await createVerifiedUser(instance);
      for (const slug of ['admin', 'Settings', 'api', 'api-reference', 'p', 'trash', 'not valid!', 'double--hyphen', 'x'.repeat(81)]) {
        const response = await client.post('/ponds', { name: 'Reserved', slug });
        assertError(response, 400, 'validation_failed');
        assert.deepEqual(fieldPaths(response), ['slug'], slug);
      }
      assert.equal(await Pond.count({ where: { name: 'Reserved' } }), 0);
    });

    test('a missing, blank or overlong name answers 400 validation_failed on field name', async () => {
      const { client } = await createVerifiedUser(instance);
      for (const body of [{}, { name: '   ' }, { name: 'n'.repeat(101) }, { name: 42 }]) {
        const response = await client.post('/ponds', body);
        assertError(response, 400, 'validation_failed');
        assert.deepEqual(fieldPaths(response), ['name'], JSON.stringify(body));
      }
    });
  });

  describe('GET /ponds/:id', () => {
    test('a member sees the view with their effective role and capabilities', async () => {
      const { pond, user: owner } = await ownerWithPond();
      const editor = await memberOf(pond.id, 'editor');
      const reader = await memberOf(pond.id, 'reader');
      const editorView = await editor.client.get(`/ponds/${pond.id}`);
      assert.equal(editorView.status, 200, editorView.text);
      assert.equal(editorView.body.id, pond.id);
      assert.equal(editorView.body.ownerId, owner.id);
      assert.equal(editorView.body.owner.id, owner.id);
      assert.equal(editorView.body.role, 'editor');
      assert.deepEqual(editorView.body.capabilities, { write: true, admin: false });
      const readerView = await reader.client.get(`/ponds/${pond.id}`);
      assert.equal(readerView.body.role, 'reader');
      assert.deepEqual(readerView.body.capabilities, { write: false, admin: false });
    });

    test('someone reached only by a page grant sees the pond with role null', async () => {
      const { pond, user: owner } = await ownerWithPond();
      const page = await seedPage(pond.id, 'Open page', { createdBy: owner.id });
      const guest = await createVerifiedUser(instance);
      await seedGrant(pond.id, { subject: { type: 'user', id: guest.user.id }, role: 'reader', scope: { type: 'page', id: page.id } });
      const response = await guest.client.get(`/ponds/${pond.id}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.role, null);
      assert.deepEqual(response.body.capabilities, { write: false, admin: false });
    });

    test('a Site Admin who is no member sees it with role null and every capability', async () => {
      const { pond } = await ownerWithPond();
      const response = await admin.get(`/ponds/${pond.id}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.role, null);
      assert.deepEqual(response.body.capabilities, { write: true, admin: true });
    });

    test('404 not_found for a non-member, an anonymous caller, a missing and a malformed id', async () => {
      const { pond } = await ownerWithPond();
      const stranger = await createVerifiedUser(instance);
      assertError(await stranger.client.get(`/ponds/${pond.id}`), 404, 'not_found');
      assertError(await new TestClient(instance.baseUrl).get(`/ponds/${pond.id}`), 404, 'not_found');
      assertError(await stranger.client.get(`/ponds/${MISSING_ID}`), 404, 'not_found');
      assertError(await stranger.client.get('/ponds/not-a-uuid'), 404, 'not_found');
    });
  });

  describe('PATCH /ponds/:id', () => {
    test('changes name, slug, fonts and settings, answers the view and audits every change from/to', async () => {
      const { client, user, pond } = await ownerWithPond();
      const response = await client.patch(`/ponds/${pond.id}`, {
        name: ' Renamed pond ',
        slug: 'Renamed-Pond',
        fonts: { body: 'source-serif-4', code: 'jetbrains-mono' },
        settings: { commentPolicy: 'editors', apiEnabled: true },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.name, 'Renamed pond');
      assert.equal(response.body.slug, 'renamed-pond');
      assert.deepEqual(response.body.fonts, { body: 'source-serif-4', heading: 'system-sans', code: 'jetbrains-mono' });
      assert.deepEqual(response.body.settings, { ...DEFAULT_SETTINGS, commentPolicy: 'editors', apiEnabled: true });
      assert.equal(response.body.role, 'pond_admin');
      assert.deepEqual((await client.get(`/ponds/${pond.id}`)).body, response.body);

      const audits = await auditOf('pond.updated', pond.id);
      assert.equal(audits.length, 1);
      assert.equal(audits[0]!.actorId, user.id);
      assert.deepEqual(audits[0]!.details.changes, {
        name: { from: pond.name, to: 'Renamed pond' },
        slug: { from: pond.slug, to: 'renamed-pond' },
        'fonts.body': { from: 'system-sans', to: 'source-serif-4' },
        'fonts.code': { from: 'system-mono', to: 'jetbrains-mono' },
        'settings.commentPolicy': { from: 'readers', to: 'editors' },
        'settings.apiEnabled': { from: false, to: true },
      });
    });

    test('settings merge key by key, and null resets a key to its default', async () => {
      const { client, pond } = await ownerWithPond();
      await client.patch(`/ponds/${pond.id}`, { settings: { commentPolicy: 'editors', sidebarView: 'labels' } });
      const merged = await client.patch(`/ponds/${pond.id}`, { settings: { mcpEnabled: true } });
      assert.equal(merged.status, 200, merged.text);
      assert.deepEqual(merged.body.settings, { commentPolicy: 'editors', apiEnabled: false, mcpEnabled: true, sidebarView: 'labels' });
      const reset = await client.patch(`/ponds/${pond.id}`, { settings: { commentPolicy: null } });
      assert.equal(reset.status, 200, reset.text);
      assert.deepEqual(reset.body.settings, { commentPolicy: 'readers', apiEnabled: false, mcpEnabled: true, sidebarView: 'labels' });
      assert.deepEqual((await Pond.findByPk(pond.id))!.settings, { mcpEnabled: true, sidebarView: 'labels' }, 'only chosen keys are stored');
      const fonts = await client.patch(`/ponds/${pond.id}`, { fonts: { heading: 'inter' } });
      assert.deepEqual(fonts.body.fonts, { ...DEFAULT_FONTS, heading: 'inter' });
      const fontReset = await client.patch(`/ponds/${pond.id}`, { fonts: { heading: null } });
      assert.deepEqual(fontReset.body.fonts, DEFAULT_FONTS);
    });

    test('a PATCH that changes nothing writes no audit entry', async () => {
      const { client, pond } = await ownerWithPond();
      const response = await client.patch(`/ponds/${pond.id}`, { name: pond.name, slug: pond.slug, settings: { apiEnabled: false } });
      assert.equal(response.status, 200, response.text);
      assert.equal((await auditOf('pond.updated', pond.id)).length, 0);
    });

    test('an unknown setting answers 400 unknown_setting naming every unknown key, and changes nothing', async () => {
      const { client, pond } = await ownerWithPond();
      const response = await client.patch(`/ponds/${pond.id}`, { name: 'Not applied', settings: { colour: 'red', apiEnabled: true, theme: 'dark' } });
      assertError(response, 400, 'unknown_setting');
      assert.deepEqual(response.body.error.details.keys, ['colour', 'theme']);
      const stored = (await Pond.findByPk(pond.id))!;
      assert.equal(stored.name, pond.name);
      assert.deepEqual(stored.settings, {});
    });

    test('a bad setting value answers 400 validation_failed naming settings.<key>', async () => {
      const { client, pond } = await ownerWithPond();
      const response = await client.patch(`/ponds/${pond.id}`, { settings: { commentPolicy: 'everyone', apiEnabled: 'yes', sidebarView: 'labels' } });
      assertError(response, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(response), ['settings.commentPolicy', 'settings.apiEnabled']);
      assert.deepEqual((await Pond.findByPk(pond.id))!.settings, {}, 'the valid key is not applied either');
      const notAnObject = await client.patch(`/ponds/${pond.id}`, { settings: ['apiEnabled'] });
      assertError(notAnObject, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(notAnObject), ['settings']);
    });

    test('a font outside the catalog or of the wrong kind answers 400 validation_failed naming fonts.<slot>', async () => {
      const { client, pond } = await ownerWithPond();
      const unknown = await client.patch(`/ponds/${pond.id}`, { fonts: { body: 'comic-sans' } });
      assertError(unknown, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(unknown), ['fonts.body']);
      const wrongKind = await client.patch(`/ponds/${pond.id}`, { fonts: { heading: 'jetbrains-mono', code: 'inter' } });
      assertError(wrongKind, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(wrongKind).sort(), ['fonts.code', 'fonts.heading']);
      const unknownSlot = await client.patch(`/ponds/${pond.id}`, { fonts: { caption: 'inter' } });
      assertError(unknownSlot, 400, 'validation_failed');
      assert.deepEqual((await Pond.findByPk(pond.id))!.fonts, {});
    });

    test('an unknown top-level field, an empty body or a bad name answers 400 validation_failed', async () => {
      const { client, pond } = await ownerWithPond();
      assertError(await client.patch(`/ponds/${pond.id}`, { name: 'Fine', kind: 'personal' }), 400, 'validation_failed');
      assertError(await client.patch(`/ponds/${pond.id}`, {}), 400, 'validation_failed');
      const blank = await client.patch(`/ponds/${pond.id}`, { name: ' ' });
      assertError(blank, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(blank), ['name']);
      assert.equal((await Pond.findByPk(pond.id))!.name, pond.name);
    });

    test('a taken slug answers 409 slug_taken (case-insensitively); a reserved one 400 on field slug', async () => {
      const { client, pond } = await ownerWithPond();
      const { pond: other } = await ownerWithPond();
      assertError(await client.patch(`/ponds/${pond.id}`, { slug: other.slug.toUpperCase() }), 409, 'slug_taken');
      await Pond.create({ slug: 'Patch-Legacy', name: 'Legacy', kind: 'shared', ownerId: null });
      assertError(await client.patch(`/ponds/${pond.id}`, { slug: 'patch-legacy' }), 409, 'slug_taken');
      const reserved = await client.patch(`/ponds/${pond.id}`, { slug: 'login' });
      assertError(reserved, 400, 'validation_failed');
      assert.deepEqual(fieldPaths(reserved), ['slug']);
      assert.equal((await Pond.findByPk(pond.id))!.slug, pond.slug);
    });

    test('401 anonymously, 404 for a non-member and a malformed id, 403 for a reader or editor', async () => {
      const { pond } = await ownerWithPond();
      const body = { name: 'Taken over' };
      assertError(await new TestClient(instance.baseUrl).patch(`/ponds/${pond.id}`, body), 401, 'unauthenticated');
      const stranger = await createVerifiedUser(instance);
      assertError(await stranger.client.patch(`/ponds/${pond.id}`, body), 404, 'not_found');
      assertError(await stranger.client.patch('/ponds/not-a-uuid', body), 404, 'not_found');
      for (const role of ['reader', 'editor'] as const) {
        const member = await memberOf(pond.id, role);
        assertError(await member.client.patch(`/ponds/${pond.id}`, body), 403, 'forbidden');
      }
      assert.equal((await Pond.findByPk(pond.id))!.name, pond.name);
    });
  });

  describe('GET /fonts', () => {
    test('answers the catalog to anyone, every slot covered', async () => {
      const response = await new TestClient(instance.baseUrl).get('/fonts');
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { items: FONT_CATALOG.map((font) => ({ ...font })) });
      const ids = response.body.items.map((font: { id: string }) => font.id);
      assert.equal(new Set(ids).size, ids.length, 'ids are unique');
      for (const category of ['sans', 'serif', 'mono']) assert.ok(response.body.items.some((font: { category: string }) => font.category === category), category);
      for (const id of Object.values(DEFAULT_FONTS)) assert.ok(ids.includes(id), `default ${id} is in the catalog`);
    });
  });

  describe('personal pond slugs', () => {
    test('derive from the username: "Jörg.Müller" gives "joerg-mueller", a collision gets "-2"', async () => {
      const derive = (username: string) => instance.services.sequelize.transaction((transaction) => freePondSlug(username, transaction));
      assert.equal(await derive('Jörg.Müller'), 'joerg-mueller');
      const { client } = await createVerifiedUser(instance);
      assert.equal((await client.post('/ponds', { name: 'Jörg’s team', slug: 'joerg-mueller' })).status, 201);
      assert.equal(await derive('Jörg.Müller'), 'joerg-mueller-2');

      const signupClient = new TestClient(instance.baseUrl);
      const signup = await signupClient.post('/auth/signup', { username: 'joerg.mueller', email: 'joerg@example.org', password: 'a long enough password' });
      assert.equal(signup.status, 201, signup.text);
      const user = (await User.findOne({ where: { username: 'joerg.mueller' } }))!;
      assert.equal((await Pond.findOne({ where: { ownerId: user.id, kind: 'personal' } }))!.slug, 'joerg-mueller-2');
    });

    test('a reserved username gets a suffixed slug', async () => {
      const derive = (username: string) => instance.services.sequelize.transaction((transaction) => freePondSlug(username, transaction));
      assert.equal(await derive('settings'), 'settings-2');
      assert.match(await derive('___'), /^pond(-[0-9]+)?$/, 'nothing usable left falls back to "pond"');
    });
  });
});
