/**
 * `/admin/users` in Chromium. A visitor is sent to sign in, a non-admin gets the 404 page.
 * On a desktop in English and a phone in German, light and dark (axe clean, focus visible,
 * nothing sideways): the list, a folded search ('JORG MULLER' finds 'Jörg Müller'), the loading,
 * empty and failed states; "Create user" hands over a one-time link, which a fresh browser
 * opens to set a password and sign in; acting on one's own account is refused in words;
 * deleting asks for the typed username, says what happens, and a refusal names the shared
 * ponds in the way. On the desktop: an account disabled while its page is open in the editor
 * loses its live session there, and two admins removing each other's Site Admin at once
 * leave the second with `last_site_admin` in words. Screenshots as
 * `admin-users-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import type { Page, Route } from 'playwright-core';
import { User } from '../../api/models/index.ts';
import { ADMIN, createVerifiedUser } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import { SITE_ADMIN_ROWS } from '../../api/testing/crossingRequests.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES, waitForIslands, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { openEditor, editorContent } from './editorPage.ts';
import { checkBothSchemes } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

const LIST_ROUTE = '**/api/v1/admin/users?*';
const PASSWORD = 'a password of her own';
const en = createTranslator('en');

useSiteUnderTest();

let admin: TestClient;
/** Signs the setup's Site Admin in through the API, once the instance is up (each describe's first hook). */
async function signInAdmin(): Promise<void> {
  if (admin) return;
  admin = new TestClient(instance.baseUrl);
  const login = await admin.post('/auth/login', { login: ADMIN.username, password: ADMIN.password });
  assert.equal(login.status, 200, login.text);
}

async function signedInSession(client: TestClient, shape: ScreenShape): Promise<BrowserSession> {
  const session = await openSession(browser, shape, 'admin-users');
  assert.ok(client.sessionCookie);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie, url: instance.baseUrl }]);
  return session;
}

/** An account the admin creates through the API, with its password set through its link, and signed in. */
async function createdPerson(username: string, extra: { displayName?: string; siteAdmin?: boolean } = {}) {
  const created = await admin.post('/admin/users', { username, email: `${username}@dorf.example`, ...extra });
  assert.equal(created.status, 201, created.text);
  const client = new TestClient(instance.baseUrl);
  const token = new URL(created.body.link).searchParams.get('token')!;
  assert.equal((await client.post('/auth/reset-password', { token, password: PASSWORD })).status, 200);
  assert.equal((await client.post('/auth/login', { login: username, password: PASSWORD })).status, 200);
  return { client, id: created.body.user.id as string, username };
}

/** An account's part of the table: its row and the notice under it. */
const row = (page: Page, username: string) => page.locator('tbody.account').filter({ has: page.locator('.username', { hasText: new RegExp(`^${username}$`) }) });

/** Types into the search box (the list reloads a moment later). */
async function typeSearch(page: Page, text: string): Promise<void> {
  await page.getByRole('searchbox').fill(text);
}

/** Types a search and waits for its answer, so a row found is of this search, not the last. */
async function search(page: Page, text: string): Promise<void> {
  const answered = page.waitForResponse((response) => response.url().includes('/api/v1/admin/users?') && (new URL(response.url()).searchParams.get('q') ?? '') === text.trim());
  await typeSearch(page, text);
  await answered;
}

async function chooseAction(session: BrowserSession, username: string, action: string): Promise<void> {
  await session.page.getByRole('button', { name: session.t('adminUsers.actionsFor', { username }) }).click();
  await session.page.getByRole('menuitem', { name: action }).click();
}

describe('who reaches /admin/users', () => {
  test('a visitor is sent to sign in; a signed-in non-admin gets the 404 page', { timeout: 60_000 }, async () => {
    const direct = await fetch(`${instance.baseUrl}/admin/users`, { redirect: 'manual' });
    assert.equal(direct.status, 302);
    assert.equal(direct.headers.get('location'), '/login?next=%2Fadmin%2Fusers');
    const { client } = await createVerifiedUser(instance);
    const denied = await fetch(`${instance.baseUrl}/admin/users`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
    assert.equal(denied.status, 404);
    const html = await denied.text();
    assert.ok(html.includes(en('notFound.title')));
    assert.ok(!html.includes(en('adminUsers.intro')), 'the 404 page says nothing of the screen');
  });
});

describe('the Site Admin manages accounts', () => {
  before(signInAdmin);
  for (const shape of SCREEN_SHAPES) {
    test(`search, states, create and hand over, refusals, delete (${shape.name})`, { timeout: 240_000 }, async () => {
      const tag = shape.name.replace('-', '');
      // A first name of each shape's own: both shapes share the instance.
      const [firstName, foldedFirstName] = shape.locale === 'en' ? ['Jörg', 'JORG'] : ['Jürgen', 'JURGEN'];
      await admin.post('/admin/users', { username: `muller-${tag}`, email: `jorg.${tag}@dorf.example`, displayName: `${firstName} Müller` });
      await admin.post('/admin/users', { username: `schafer-${tag}`, email: `schafer.${tag}@dorf.example`, displayName: 'Käthe Schäfer' });
      const owner = await createdPerson(`owner-${tag}`);
      const shared = await owner.client.post('/ponds', { name: `Dorfchronik ${tag}` });
      assert.equal(shared.status, 201, shared.text);

      const session = await signedInSession(admin, shape);
      const { page, t, problems } = session;
      try {
        await session.visit(`${instance.baseUrl}/admin/users`);
        await page.getByRole('heading', { level: 1, name: t('adminUsers.title') }).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminNav.users') }).getAttribute('aria-current'), 'page');
        await row(page, 'admin').waitFor();
        await checkBothSchemes(session, 'list');

        // A folded search, its answer held back: the list says it is loading.
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route(LIST_ROUTE, async (route: Route) => {
          await held;
          await route.continue();
        });
        await typeSearch(page, `${foldedFirstName} MULLER`);
        await page.getByText(t('adminUsers.loading')).waitFor();
        await checkBothSchemes(session, 'loading');
        release();
        await page.getByText(t('adminUsers.loading')).waitFor({ state: 'hidden' });
        await page.unroute(LIST_ROUTE);
        await row(page, `muller-${tag}`).waitFor();
        assert.equal(await page.locator('tbody.account').count(), 1, `only ${firstName} Müller matches`);
        await row(page, `muller-${tag}`).getByText(`${firstName} Müller`).waitFor();
        await search(page, `jorg.${tag}@dorf`);
        await row(page, `muller-${tag}`).waitFor();
        assert.equal(await page.locator('tbody.account').count(), 1, 'a part of the e-mail finds it');

        // Nothing matches; then the list fails and comes back on retry.
        await search(page, 'zzz-nobody');
        await page.getByText(t('adminUsers.empty')).waitFor();
        await checkBothSchemes(session, 'empty');
        await page.route(LIST_ROUTE, (route: Route) => route.abort());
        await typeSearch(page, 'schafer');
        await page.getByRole('alert').filter({ hasText: t('adminUsers.loadFailed') }).waitFor();
        await checkBothSchemes(session, 'error');
        await page.unroute(LIST_ROUTE);
        await page.getByRole('button', { name: t('adminUsers.retry') }).click();
        await row(page, `schafer-${tag}`).waitFor();

        // The Site Admin filter: only the admin.
        await search(page, '');
        await page.getByLabel(t('adminUsers.role')).selectOption('true');
        await row(page, 'admin').waitFor();
        await waitFor(async () => (await page.locator('tbody.account').count()) === 1 || undefined, 5_000, 'only Site Admins');
        await page.getByLabel(t('adminUsers.role')).selectOption('');

        // One's own account: refused in words at its row.
        await search(page, 'admin');
        await row(page, 'admin').waitFor();
        await chooseAction(session, 'admin', t('adminUsers.actionDisable'));
        await row(page, 'admin').getByRole('alert').filter({ hasText: t('adminUsers.refusedSelf') }).waitFor();
        await checkBothSchemes(session, 'refused-self');

        // Create a user; the one-time link is shown once.
        const username = `neu-${tag}`;
        await page.getByRole('button', { name: t('adminUsers.create') }).click();
        const dialog = page.getByRole('dialog', { name: t('adminUsers.createTitle') });
        await dialog.waitFor();
        await dialog.getByLabel(t('adminUsers.createUsername')).fill(`muller-${tag}`);
        await dialog.getByLabel(t('adminUsers.createEmail')).fill(`${username}@dorf.example`);
        await dialog.getByLabel(new RegExp(t('adminUsers.createDisplayName'))).fill('Greta Neu');
        await checkBothSchemes(session, 'create');
        await dialog.getByRole('button', { name: t('adminUsers.createButton') }).click();
        // A taken username is refused at its field, in words.
        await dialog.locator('#username-error').waitFor();
        await dialog.getByLabel(t('adminUsers.createUsername')).fill(username);
        await dialog.getByRole('button', { name: t('adminUsers.createButton') }).click();
        const createdDialog = page.getByRole('dialog', { name: t('adminUsers.createdTitle', { username }) });
        await createdDialog.waitFor();
        const link = await createdDialog.getByLabel(t('adminUsers.linkLabel')).inputValue();
        assert.match(link, /\/reset-password\?token=[A-Za-z0-9_-]{40,}$/);
        await checkBothSchemes(session, 'created');
        await createdDialog.getByRole('button', { name: t('adminUsers.done') }).click();
        await search(page, username);
        await row(page, username).getByText(t('adminUsers.statusACTIVE')).waitFor();

        // The person opens the link in a browser of their own, sets a password and signs in.
        const person = await openSession(browser, shape, 'admin-users-person');
        try {
          await person.page.goto(link.replace(/^https?:\/\/[^/]+/, instance.baseUrl));
          await waitForIslands(person.page);
          await person.page.getByLabel(person.t('field.newPassword'), { exact: true }).fill(PASSWORD);
          await person.page.getByLabel(person.t('field.confirmPassword')).fill(PASSWORD);
          await person.page.getByRole('button', { name: person.t('reset.submit') }).click();
          await person.page.getByText(person.t('reset.success')).waitFor();
          await person.visit(`${instance.baseUrl}/login`);
          await person.page.getByLabel(person.t('field.login')).fill(username);
          await person.page.getByLabel(person.t('field.password')).fill(PASSWORD);
          await Promise.all([person.page.waitForURL((url) => url.pathname !== '/login'), person.page.getByRole('button', { name: person.t('login.submit') }).click()]);
          const me = await person.page.evaluate(async () => (await (await fetch('/api/v1/users/me')).json()) as { username: string });
          assert.equal(me.username, username, 'signed in as the new account');
          assert.deepEqual(person.problems, []);
        } finally {
          await person.context.close();
        }

        // A reset link for the account, shown once with a Copy button.
        await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: instance.baseUrl });
        await chooseAction(session, username, t('adminUsers.actionResetLink'));
        const resetDialog = page.getByRole('dialog', { name: t('adminUsers.resetLinkTitle', { username }) });
        const resetLink = await resetDialog.getByLabel(t('adminUsers.linkLabel')).inputValue();
        assert.match(resetLink, /\/reset-password\?token=[A-Za-z0-9_-]{40,}$/);
        assert.notEqual(resetLink, link, 'a new link');
        await resetDialog.getByRole('button', { name: t('adminUsers.copy') }).click();
        await resetDialog.getByText(t('adminUsers.copiedAnnouncement')).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), resetLink);
        await checkBothSchemes(session, 'reset-link');
        await resetDialog.getByRole('button', { name: t('adminUsers.done') }).click();
        await resetDialog.waitFor({ state: 'hidden' });

        // Deleting asks for the typed username and says what happens.
        const createdId = (await User.findOne({ where: { username } }))!.id;
        await chooseAction(session, username, t('adminUsers.actionDelete'));
        const confirm = page.getByRole('dialog', { name: t('adminUsers.deleteTitle', { username }) });
        await confirm.getByText(t('adminUsers.deleteConsequences')).waitFor();
        await confirm.getByLabel(t('adminUsers.deleteTypeLabel', { username })).fill('not-the-name');
        await confirm.getByRole('button', { name: t('adminUsers.deleteButton') }).click();
        await confirm.getByText(t('adminUsers.deleteMismatch')).waitFor();
        assert.equal((await User.findByPk(createdId))!.status, 'ACTIVE', 'a wrong name deletes nothing');
        await checkBothSchemes(session, 'delete');
        await confirm.getByLabel(t('adminUsers.deleteTypeLabel', { username })).fill(username);
        await confirm.getByRole('button', { name: t('adminUsers.deleteButton') }).click();
        await page.getByText(t('adminUsers.doneDelete', { username })).waitFor();
        await confirm.waitFor({ state: 'hidden' });
        assert.equal((await User.findByPk(createdId))!.status, 'deleted');
        assert.equal(await row(page, username).count(), 0, 'gone from the list');

        // An owner of a shared pond cannot be deleted: the refusal names the pond.
        await search(page, owner.username);
        await chooseAction(session, owner.username, t('adminUsers.actionDelete'));
        const ownerConfirm = page.getByRole('dialog', { name: t('adminUsers.deleteTitle', { username: owner.username }) });
        await ownerConfirm.getByLabel(t('adminUsers.deleteTypeLabel', { username: owner.username })).fill(owner.username);
        await ownerConfirm.getByRole('button', { name: t('adminUsers.deleteButton') }).click();
        await ownerConfirm.getByRole('alert').filter({ hasText: t('adminUsers.refusedOwnsPonds', { username: owner.username, ponds: shared.body.slug }) }).waitFor();
        await checkBothSchemes(session, 'refused-owns-ponds');
        await ownerConfirm.getByRole('button', { name: t('adminUsers.cancel') }).click();
        assert.equal((await User.findByPk(owner.id))!.status, 'ACTIVE');
        // The refusals (409) and the aborted list request are logged by the browser; nothing else may be.
        assert.deepEqual(problems.filter((problem) => !problem.includes('Failed to load resource')), []);
      } finally {
        await session.context.close();
      }
    });
  }
});

describe('actions reaching other sessions (desktop-en)', () => {
  before(signInAdmin);
  const shape = SCREEN_SHAPES[0]!;

  test('disabling an account while its page is open in the editor ends its live session there', { timeout: 120_000 }, async () => {
    const writer = await createdPerson('writer-editor', { displayName: 'Wanda Writer' });
    const ponds = (await writer.client.get('/ponds')).body.items as { id: string; slug: string; kind: string }[];
    const personal = ponds.find((pond) => pond.kind === 'personal')!;
    const created = await writer.client.post(`/ponds/${personal.id}/pages`, { title: 'Notizen', markdown: 'Erste Zeile.' });
    assert.equal(created.status, 201, created.text);
    const writerSession = await signedInSession(writer.client, shape);
    const adminSession = await signedInSession(admin, shape);
    try {
      await openEditor(writerSession, `${instance.baseUrl}/${personal.slug}/${created.body.slug}`);
      assert.equal(await editorContent(writerSession.page).getAttribute('contenteditable'), 'true');

      await adminSession.visit(`${instance.baseUrl}/admin/users`);
      await search(adminSession.page, writer.username);
      await row(adminSession.page, writer.username).waitFor();
      await chooseAction(adminSession, writer.username, adminSession.t('adminUsers.actionDisable'));
      await row(adminSession.page, writer.username).getByText(adminSession.t('adminUsers.doneDisable', { username: writer.username })).waitFor();
      await row(adminSession.page, writer.username).locator('.status', { hasText: adminSession.t('adminUsers.statusdisabled') }).waitFor();

      // The collab server closed the socket; the editor's new token is refused (401, the session
      // ended with the account): read-only, and the status line says why.
      await writerSession.page.getByText(writerSession.t('editor.status.sessionEnded')).waitFor({ timeout: 15_000 });
      assert.equal(await editorContent(writerSession.page).getAttribute('contenteditable'), 'false');
      await writerSession.screenshot('editor-after-disable');
      assert.equal((await writer.client.get('/users/me')).status, 401);
    } finally {
      await writerSession.context.close();
      await adminSession.context.close();
    }
  });

  test('two admins removing each other at once: the second is refused with last_site_admin, in words', { timeout: 120_000 }, async () => {
    const other = await createdPerson('second-admin', { siteAdmin: true });
    const adminId = (await admin.get('/users/me')).body.id as string;
    const session = await signedInSession(admin, shape);
    const { page, t } = session;
    const sequelize = instance.services.sequelize;
    const waiters = async () =>
      (await sequelize.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`, { type: QueryTypes.SELECT }))[0]!.waiting;
    try {
      await session.visit(`${instance.baseUrl}/admin/users`);
      await search(page, other.username);
      await row(page, other.username).waitFor();
      // Both requests wait on the Site Admin rows; the other admin's is first in line.
      const hold = await sequelize.transaction();
      let theirs: Promise<{ status: number }>;
      try {
        await sequelize.query(SITE_ADMIN_ROWS, { transaction: hold, type: QueryTypes.SELECT });
        theirs = other.client.request('DELETE', `/admin/users/${adminId}/site-admin`);
        await waitFor(async () => (await waiters()) >= 1 || undefined, 10_000, 'the other admin to wait');
        await chooseAction(session, other.username, t('adminUsers.actionRevoke'));
        await waitFor(async () => (await waiters()) >= 2 || undefined, 10_000, 'both to wait');
      } finally {
        await hold.commit();
      }
      assert.equal((await theirs).status, 200, 'the first removal went through');
      await row(page, other.username).getByRole('alert').filter({ hasText: t('adminUsers.refusedLastAdmin', { username: other.username }) }).waitFor();
      await checkBothSchemes(session, 'refused-last-admin');
      assert.equal((await User.findByPk(other.id))!.isSiteAdmin, true, 'the last Site Admin stays one');
    } finally {
      // Put the first admin back, for whatever runs next.
      await other.client.request('PUT', `/admin/users/${adminId}/site-admin`);
      await session.context.close();
    }
  });
});
