/**
 * An instance without mail, in a real Chromium, on a desktop in English and a phone in German:
 * signing up gives an account that is signed in at once and says that no mail was sent;
 * "forgot password" says that no link can be mailed and to ask an administrator, whose reset
 * link (made through the API; the admin screens come later) then sets a new password once;
 * an account left unconfirmed when mail went away is told that no new link was sent, and an
 * administrator confirms it. No console errors or CSP violations anywhere, and no serious axe
 * finding on any screen (site/e2e/axe.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { completeSetup, createVerifiedUser } from '../../api/testing/fixtures.ts';
import { saveSmtpRelay } from '../../api/testing/mailRelay.ts';
import { closedPort } from '../../api/testing/smtpTestServer.ts';
import { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, waitForIslands } from './browserSession.ts';

const PASSWORD = 'a long enough password';

describe('accounts without mail in Chromium', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let browser: Browser;

  before(async () => {
    await ensureSiteBuilt();
    instance = await startTestInstance({ site: true });
    admin = await completeSetup(instance, { registration: 'open' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await instance?.close();
  });

  for (const shape of SCREEN_SHAPES) {
    test(`sign-up without mail: signed in at once, and the screen says no mail was sent (${shape.name})`, { timeout: 60_000 }, async () => {
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'signup-without-mail');
      const account = { username: `frosch-${shape.locale}`, email: `frosch-${shape.locale}@example.org`, displayName: `Frieda ${shape.locale.toUpperCase()}` };

      await visit(`${instance.baseUrl}/signup`);
      await page.getByLabel(t('field.username')).fill(account.username);
      await page.getByLabel(t('field.email')).fill(account.email);
      await page.getByLabel(t('field.displayName')).fill(account.displayName);
      await page.getByLabel(t('field.password'), { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: t('signup.submit') }).click();

      // The outcome is shown under the signed-in header.
      await page.waitForURL(`${instance.baseUrl}/signup?welcome`);
      await page.getByRole('heading', { level: 1, name: t('signup.ready') }).waitFor();
      assert.equal(await page.getByText(t('signup.readyNoMail', { email: account.email })).count(), 1);
      assert.equal(await page.getByText(t('signup.checkInbox')).count(), 0, 'never "check your inbox" when nothing was sent');
      assert.equal(await page.locator('.user-menu-button').textContent().then((text) => text?.includes(account.displayName)), true, 'the header shows the account signed in');
      assert.equal(await page.getByText(t('signup.haveAccount')).count(), 0);
      await check('done');

      await page.getByRole('link', { name: t('signup.toHome') }).click();
      await page.getByRole('heading', { level: 1, name: t('home.greeting', { name: account.displayName }) }).waitFor();
      await check('home');

      // The password works from a fresh browser too: the account is ACTIVE.
      const fresh = await openSession(browser, shape, 'signup-without-mail');
      await fresh.visit(`${instance.baseUrl}/login`);
      await fresh.page.getByLabel(t('field.login')).fill(account.email);
      await fresh.page.getByLabel(t('field.password')).fill(PASSWORD);
      await fresh.page.getByRole('button', { name: t('login.submit') }).click();
      await fresh.page.getByRole('heading', { level: 1, name: t('home.greeting', { name: account.displayName }) }).waitFor();

      assert.deepEqual([...problems, ...fresh.problems], [], 'no console errors or CSP violations');
      await fresh.context.close();
      await context.close();
    });

    test(`password reset without mail: the screen says to ask an administrator, whose link works once (${shape.name})`, { timeout: 60_000 }, async () => {
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'reset-without-mail');
      const { credentials, user } = await createVerifiedUser(instance, { locale: shape.locale });

      // The page knows the instance sends no mail: it says whom to ask instead of offering to mail a link.
      await visit(`${instance.baseUrl}/forgot-password`);
      await page.getByText(t('forgot.unavailable')).waitFor();
      assert.equal(await page.getByRole('button', { name: t('forgot.submit') }).count(), 0, 'no form that would send nothing');
      assert.equal(await page.getByText(t('forgot.intro')).count(), 0, 'never "we will send you a link"');
      await check('forgot');

      const created = await admin.post(`/admin/users/${user.id}/reset-link`);
      assert.equal(created.status, 201, created.text);
      const link: string = created.body.link;

      await visit(link);
      await page.getByLabel(t('field.newPassword')).fill('a brand new password');
      await page.getByLabel(t('field.confirmPassword')).fill('a brand new password');
      await page.getByRole('button', { name: t('reset.submit') }).click();
      await page.getByText(t('reset.success')).waitFor();
      await check('reset');

      await page.getByRole('link', { name: t('nav.signIn') }).first().click();
      await page.waitForURL(`${instance.baseUrl}/login`);
      await waitForIslands(page);
      await page.getByLabel(t('field.login')).fill(credentials.username);
      await page.getByLabel(t('field.password')).fill('a brand new password');
      await page.getByRole('button', { name: t('login.submit') }).click();
      await page.getByRole('heading', { level: 1, name: t('home.greeting', { name: credentials.displayName }) }).waitFor();

      // The link was for one use.
      const again = await openSession(browser, shape, 'reset-without-mail');
      await again.visit(link);
      await again.page.getByLabel(t('field.newPassword')).fill('yet another password');
      await again.page.getByLabel(t('field.confirmPassword')).fill('yet another password');
      await again.page.getByRole('button', { name: t('reset.submit') }).click();
      await again.page.getByRole('link', { name: t('reset.requestNew') }).waitFor();
      assert.equal(await again.page.getByLabel(t('field.newPassword')).count(), 1, 'the form stays: the link was used, not malformed');
      assert.equal(await again.page.getByText(t('reset.missingToken')).count(), 0);
      await again.check('link-used');

      assert.deepEqual([...problems, ...again.problems.filter((problem) => !/status of 400/.test(problem))], [], 'no console errors or CSP violations');
      await again.context.close();
      await context.close();
    });

    test(`an account left unconfirmed when mail went away: asking for a new link says none was sent; an admin confirms it (${shape.name})`, { timeout: 60_000 }, async () => {
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'resend-without-mail');
      const account = { username: `stranded-${shape.locale}`, email: `stranded-${shape.locale}@example.org`, password: PASSWORD };
      // Signed up while a relay was saved (no worker runs here, so nothing went out); then the relay was removed.
      await saveSmtpRelay(instance, await closedPort());
      const signup = await new TestClient(instance.baseUrl).post('/auth/signup', account);
      await saveSmtpRelay(instance, null);
      assert.equal(signup.status, 201, signup.text);
      assert.equal(signup.body.user.status, 'unconfirmed');

      await visit(`${instance.baseUrl}/login`);
      await page.getByLabel(t('field.login')).fill(account.email);
      await page.getByLabel(t('field.password')).fill(PASSWORD);
      await page.getByRole('button', { name: t('login.submit') }).click();
      await page.getByRole('heading', { name: t('verify.resendHeading') }).waitFor();
      await page.getByRole('button', { name: t('verify.resendSubmit') }).click();
      await page.getByText(t('verify.resendNoMail')).waitFor();
      assert.equal(await page.getByText(t('verify.resendSent')).count(), 0, 'never "a new link is on its way" when nothing was sent');
      await check('resend');

      // The confirmation page says the same before anyone asks.
      await visit(`${instance.baseUrl}/verify-email`);
      await page.getByText(t('verify.resendUnavailable')).waitFor();

      assert.equal((await admin.post(`/admin/users/${signup.body.user.id}/confirm`)).status, 200);
      await visit(`${instance.baseUrl}/login`);
      await page.getByLabel(t('field.login')).fill(account.email);
      await page.getByLabel(t('field.password')).fill(PASSWORD);
      await page.getByRole('button', { name: t('login.submit') }).click();
      await page.waitForURL(`${instance.baseUrl}/`);
      assert.deepEqual(problems.filter((problem) => !/status of 403/.test(problem)), [], 'no console errors or CSP violations');
      await context.close();
    });
  }
});
