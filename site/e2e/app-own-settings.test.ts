/**
 * The signed-in user's own settings at `/settings` in Chromium: the account, a new display
 * name and digest (checked through `GET /users/me`), a password change refused for a wrong
 * current password (said at that field) and for a mismatched repetition, then done: a session
 * opened earlier elsewhere is signed out, this one stays, the new password signs in and the old
 * one no longer does. The feed token section is there; `/settings/profile` leads to
 * `/settings`, and a visitor without a session to the sign-in. Desktop in English, phone in
 * German; axe on each screen, screenshots as `own-settings-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { errorMessagesDe } from '../../api/i18n/errorMessages.de.ts';
import { errorMessagesEn } from '../../api/i18n/errorMessages.en.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

const NEW_PASSWORD = 'a fresh pond password';

useSiteUnderTest();

/** The error shown in the field around the input with this id. */
function fieldError(page: Page, inputId: string) {
  return page.locator('.field', { has: page.locator(`#${inputId}`) }).locator('.field-error');
}

describe('own settings', () => {
  test('without a session /settings leads to the sign-in, which comes back to /settings; /settings/profile moved to /settings', async () => {
    const anonymous = await fetch(`${instance.baseUrl}/settings`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302);
    const login = new URL(anonymous.headers.get('location')!, instance.baseUrl);
    assert.equal(login.pathname, '/login');
    assert.equal(login.searchParams.get('next'), '/settings');
    const moved = await fetch(`${instance.baseUrl}/settings/profile`, { redirect: 'manual' });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), '/settings');
  });

  for (const shape of SCREEN_SHAPES) {
    test(`profile, password change refused then done, feed token (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const errorMessages = shape.locale === 'de' ? errorMessagesDe : errorMessagesEn;
      const { client, credentials, user } = await createVerifiedUser(instance);
      const otherDevice = new TestClient(instance.baseUrl);
      assert.equal((await otherDevice.post('/auth/login', { login: credentials.username, password: credentials.password })).status, 200);

      const session = await openSession(browser, shape, 'own-settings');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        // The old address still works: it lands here.
        await session.visit(`${instance.baseUrl}/settings/profile`);
        assert.equal(new URL(page.url()).pathname, '/settings');
        await page.getByRole('heading', { level: 1, name: t('settings.title') }).waitFor();
        const account = page.getByRole('region', { name: t('profile.account') });
        await account.getByText(credentials.username, { exact: true }).waitFor();
        await account.getByText(credentials.email, { exact: true }).waitFor();
        await page.getByRole('region', { name: t('feeds.heading') }).getByRole('button', { name: t('feeds.create') }).waitFor();
        await session.check('start');

        // Profile and notifications.
        const preferences = page.getByRole('region', { name: t('profile.preferences') });
        await preferences.getByLabel(t('field.displayName')).fill('Karla Kröte');
        await preferences.getByLabel(t('profile.digest.daily')).check();
        await preferences.getByRole('button', { name: t('profile.submit') }).click();
        await preferences.getByText(t('profile.saved')).waitFor();
        const me = (await client.get('/users/me')).body;
        assert.deepEqual([me.id, me.displayName, me.digestFrequency], [user.id, 'Karla Kröte', 'daily']);

        // A wrong current password: refused in words at that field, focus there, nothing changed.
        const password = page.getByRole('region', { name: t('password.heading') });
        const current = password.getByLabel(t('password.current'), { exact: true });
        const fresh = password.getByLabel(t('field.newPassword'), { exact: true });
        const repeated = password.getByLabel(t('password.confirm'), { exact: true });
        const change = password.getByRole('button', { name: t('password.submit') });
        await current.fill('not my password at all');
        await fresh.fill(NEW_PASSWORD);
        await repeated.fill(NEW_PASSWORD);
        await change.click();
        await fieldError(page, 'currentPassword').filter({ hasText: errorMessages.current_password_wrong }).waitFor();
        assert.equal(await current.getAttribute('aria-invalid'), 'true');
        assert.ok(await current.evaluate((input) => input === document.activeElement), 'focus on the current password');
        await password.getByRole('alert').filter({ hasText: t('form.fieldErrorsSummary') }).waitFor();
        await session.check('wrong-current');
        assert.equal((await otherDevice.get('/users/me')).status, 200, 'nothing changed: the other session lives');

        // A repetition that differs is caught before anything is sent.
        await current.fill(credentials.password);
        await repeated.fill(`${NEW_PASSWORD}!`);
        await change.click();
        await fieldError(page, 'newPasswordConfirmation').filter({ hasText: t('field.passwordMismatch') }).waitFor();
        assert.equal(await fieldError(page, 'currentPassword').count(), 0, 'the earlier refusal is gone');

        // Done: the message says the other sessions were signed out.
        await repeated.fill(NEW_PASSWORD);
        await change.click();
        await password.getByText(t('password.changed')).waitFor();
        assert.equal(await current.inputValue(), '', 'the fields are emptied');
        await session.check('changed');
        assert.equal((await otherDevice.get('/users/me')).status, 401, 'the session opened elsewhere is signed out');
        assert.equal((await client.get('/users/me')).status, 200, 'this browser stays signed in');
        assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: credentials.password })).status, 401);
        assert.equal((await new TestClient(instance.baseUrl).post('/auth/login', { login: credentials.username, password: NEW_PASSWORD })).status, 200);
        await session.visit(`${instance.baseUrl}/settings`);
        await page.getByRole('heading', { level: 1, name: t('settings.title') }).waitFor();

        assert.deepEqual(problems.filter((problem) => !/status of 403/.test(problem)), []);
      } finally {
        await context.close();
      }
    });
  }
});
