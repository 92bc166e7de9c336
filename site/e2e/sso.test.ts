/**
 * Single sign-on in Chromium, against a real OpenID Connect provider (api/testing/oidcTestProvider.ts,
 * labelled "Pondcloak"): the login page shows "Sign in with Pondcloak" with an "or" above the
 * password form, before hydration too, and every refusal the callback brings back (`?error=`)
 * in words at the top; a first sign-in through the button creates the account and its pond; an
 * address that belongs to a password account is refused with link_required, after which the owner
 * signs in with the password, links Pondcloak in the settings and finds it listed; an account
 * without password cannot unlink its only way in (said in words in the row), one with a password
 * can; linking an identity another account holds is refused in words. Desktop in English and a
 * phone in German, light and dark, axe clean; screenshots as `sso-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { SIGN_IN_REFUSAL_CODES, signInRefusalText } from '../../editor/src/account/signInRefusals.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { OidcTestAccount, OidcTestProvider } from '../../api/testing/oidcTestProvider.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, waitForIslands, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

const LABEL = 'Pondcloak';
const en = createTranslator('en');

let instance: TestInstance;
let provider: OidcTestProvider;
let browser: Browser;
let accounts = 0;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true, oidc: {}, env: { OIDC_PROVIDER_LABEL: LABEL } });
  provider = instance.oidc!;
  await completeSetup(instance);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

/** A provider account nobody has used here yet. */
function providerAccount(overrides: Partial<OidcTestAccount> = {}): OidcTestAccount {
  accounts += 1;
  return { sub: `pondcloak-${accounts}`, email: `sso${accounts}@example.org`, email_verified: true, name: `Sso Person ${accounts}`, preferred_username: `sso${accounts}`, ...overrides };
}

async function signedInSession(cookie: string, shape: ScreenShape): Promise<BrowserSession> {
  const session = await openSession(browser, shape, 'sso');
  await session.context.addCookies([{ name: 'dt_session', value: cookie, url: instance.baseUrl }]);
  return session;
}

/** Who the browser's session belongs to, asked through the API with its cookies. */
async function sessionUser(page: Page): Promise<{ id: string; username: string; email: string } | null> {
  const answer = await page.request.get(`${instance.baseUrl}/api/v1/auth/session`);
  return ((await answer.json()) as { user: { id: string; username: string; email: string } | null }).user;
}

/** The sign-in methods section alone (`sso-<shape>-<name>-section.png`), light and dark: the full-page shots make it small. */
const SCREENSHOT_DIR = process.env.DT_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));

async function sectionShots(page: Page, shape: ScreenShape, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.locator('#sign-in-methods').screenshot({ path: path.join(SCREENSHOT_DIR, `sso-${shape.name}-${name}-section${colorScheme === 'dark' ? '-dark' : ''}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

function providerButton(page: Page, t: BrowserSession['t']) {
  return page.getByRole('link', { name: t('sso.login.signInWith', { label: LABEL }) });
}

describe('the login page', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`the provider button above an "or" and the password form, then a refusal in words (${shape.name})`, { timeout: 90_000 }, async () => {
      const session = await openSession(browser, shape, 'sso');
      const { page, t, problems } = session;
      try {
        await session.visit(`${instance.baseUrl}/login?next=${encodeURIComponent('/search?q=teich')}`);
        const button = providerButton(page, t);
        assert.equal(await button.getAttribute('href'), `/api/v1/auth/oidc/start?next=${encodeURIComponent('/search?q=teich')}`);
        await page.getByText(t('sso.login.or'), { exact: true }).waitFor();
        // The button, then "or", then the password form, in reading order.
        const order = await page.locator('.panel').evaluate((panel) => [...panel.querySelectorAll('a.sign-in-provider, .sign-in-or, form')].map((element) => element.tagName));
        assert.deepEqual(order, ['A', 'P', 'FORM']);
        assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, 'no refusal without ?error=');
        await checkBothSchemes(session, 'login-button');

        await session.visit(`${instance.baseUrl}/login?error=oidc_link_required`);
        const alert = page.getByRole('alert').filter({ hasText: /\S/ });
        assert.equal((await alert.textContent())?.trim(), signInRefusalText('oidc_link_required', LABEL, t));
        // At the top: above the button and the form.
        const alertBox = (await alert.boundingBox())!;
        assert.ok(alertBox.y + alertBox.height <= (await providerButton(page, t).boundingBox())!.y, 'the refusal is above the button');
        await checkBothSchemes(session, 'login-error');
        assert.deepEqual(problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('every refusal code reads in words, the button works before hydration, unknown codes show nothing', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ locale: 'en-US', javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      for (const code of SIGN_IN_REFUSAL_CODES) {
        await page.goto(`${instance.baseUrl}/login?error=${code}`);
        assert.equal((await page.getByRole('alert').filter({ hasText: /\S/ }).textContent())?.trim(), signInRefusalText(code, LABEL, en), code);
      }
      for (const value of ['made_up', '<b>oidc_failed</b>']) {
        await page.goto(`${instance.baseUrl}/login?error=${encodeURIComponent(value)}`);
        assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, value);
        assert.ok(!(await page.content()).includes('made_up'), 'an unknown code is not echoed');
      }
      await page.goto(`${instance.baseUrl}/login`);
      assert.equal(await providerButton(page, en).getAttribute('href'), '/api/v1/auth/oidc/start?next=%2F');
    } finally {
      await context.close();
    }
  });
});

describe('refusals that come back from the button', () => {
  test('cancelled at the provider: back on the login page, said in words, not signed in', { timeout: 60_000 }, async () => {
    provider.setNextLogin('cancel');
    const session = await openSession(browser, SCREEN_SHAPES[1]!, 'sso');
    const { page, t, problems } = session;
    try {
      await session.visit(`${instance.baseUrl}/login`);
      await Promise.all([page.waitForURL((url) => url.searchParams.get('error') === 'oidc_cancelled'), providerButton(page, t).click()]);
      assert.equal((await page.getByRole('alert').filter({ hasText: /\S/ }).textContent())?.trim(), signInRefusalText('oidc_cancelled', LABEL, t));
      assert.equal(await sessionUser(page), null);
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });
});

describe('signing in and linking through the provider', () => {
  test('a first sign-in through the button creates the account and its personal pond, and lands on next', { timeout: 90_000 }, async () => {
    const newcomer = providerAccount({ preferred_username: 'newt', name: 'Newt Molch', email: 'newt@example.org' });
    provider.setNextLogin(newcomer);
    const session = await openSession(browser, SCREEN_SHAPES[0]!, 'sso');
    const { page, t, problems } = session;
    try {
      await session.visit(`${instance.baseUrl}/login?next=%2Fsearch`);
      await Promise.all([page.waitForURL((url) => url.pathname === '/search'), providerButton(page, t).click()]);
      const user = await sessionUser(page);
      assert.equal(user?.username, 'newt');
      assert.equal(user?.email, 'newt@example.org');
      const ponds = (await (await page.request.get(`${instance.baseUrl}/api/v1/ponds`)).json()) as { items: { kind: string }[] };
      assert.equal(ponds.items.filter((pond) => pond.kind === 'personal').length, 1, 'a personal pond');
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });

  for (const shape of SCREEN_SHAPES) {
    test(`an address of a password account: link_required, then password sign-in, link in the settings, listed (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { credentials } = await createVerifiedUser(instance, { locale: shape.locale });
      const identity = providerAccount({ email: credentials.email });
      provider.setNextLogin(identity);
      const session = await openSession(browser, shape, 'sso');
      const { page, t, problems } = session;
      try {
        await session.visit(`${instance.baseUrl}/login`);
        await Promise.all([page.waitForURL((url) => url.searchParams.get('error') === 'oidc_link_required'), providerButton(page, t).click()]);
        await waitForIslands(page);
        assert.equal(await sessionUser(page), null, 'not signed in');
        const refusal = page.getByRole('alert').filter({ hasText: /\S/ });
        assert.equal((await refusal.textContent())?.trim(), signInRefusalText('oidc_link_required', LABEL, t));

        // As the refusal says: the password, then the settings, where Link waits.
        await page.getByLabel(t('field.login')).fill(credentials.username);
        await page.getByLabel(t('field.password')).fill(credentials.password);
        await Promise.all([page.waitForURL((url) => url.pathname === '/settings'), page.getByRole('button', { name: t('login.submit') }).click()]);
        await waitForIslands(page);
        const methods = page.getByRole('region', { name: t('sso.methods.heading') });
        await methods.getByText(t('sso.methods.empty')).waitFor();
        await methods.getByText(t('sso.methods.passwordSet')).waitFor();
        await checkBothSchemes(session, 'settings-not-linked');

        await Promise.all([page.waitForURL((url) => url.searchParams.get('linked') === '1' || url.searchParams.has('error')), methods.getByRole('link', { name: t('sso.methods.link', { label: LABEL }) }).click()]);
        await waitForIslands(page);
        await methods.getByRole('status').filter({ hasText: t('sso.link.done', { label: LABEL }) }).waitFor();
        const rows = methods.getByRole('list', { name: t('sso.methods.linkedHeading') }).getByRole('listitem');
        assert.equal(await rows.count(), 1);
        await rows.first().getByText(LABEL, { exact: true }).waitFor();
        await rows.first().getByText(credentials.email, { exact: true }).waitFor();
        assert.equal(await methods.getByRole('link', { name: t('sso.methods.link', { label: LABEL }) }).count(), 0, 'no Link once linked');
        // The outcome is dropped from the address: a reload does not announce it again.
        assert.equal(new URL(page.url()).search, '');
        await checkBothSchemes(session, 'settings-linked');
        await sectionShots(page, shape, 'settings-linked');

        // From now on the provider signs this account in.
        await page.context().clearCookies();
        await session.visit(`${instance.baseUrl}/login`);
        await Promise.all([page.waitForURL((url) => url.pathname === '/'), providerButton(page, t).click()]);
        assert.equal((await sessionUser(page))?.username, credentials.username);

        // With a password set, unlinking is allowed: asked first, then gone, and Link is back.
        await session.visit(`${instance.baseUrl}/settings`);
        await methods.getByRole('button', { name: new RegExp(`^${t('sso.methods.unlink')}`) }).click();
        const dialog = page.getByRole('dialog', { name: t('sso.methods.unlinkTitle', { label: LABEL }) });
        await dialog.waitFor();
        await session.check('unlink-dialog');
        // The dialog stays in the window: the window's own view shows it where the reader sees it.
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `sso-${shape.name}-unlink-dialog-view.png`) });
        await dialog.getByRole('button', { name: t('sso.methods.unlinkButton') }).click();
        await methods.getByText(t('sso.methods.unlinked', { label: LABEL })).waitFor();
        await methods.getByText(t('sso.methods.empty')).waitFor();
        // The row is gone, so the focus goes to the list's heading, not to the top of the page.
        await page.waitForFunction(() => document.activeElement?.id === 'linked-sign-ins-heading');
        await methods.getByRole('link', { name: t('sso.methods.link', { label: LABEL }) }).waitFor();
        assert.deepEqual(problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('an account without password cannot unlink its only way in: said in words in its row', { timeout: 90_000 }, async () => {
    const shape = SCREEN_SHAPES[1]!;
    provider.setNextLogin(providerAccount());
    const session = await openSession(browser, shape, 'sso');
    const { page, t, problems } = session;
    try {
      await session.visit(`${instance.baseUrl}/login`);
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), providerButton(page, t).click()]);
      await session.visit(`${instance.baseUrl}/settings`);
      const methods = page.getByRole('region', { name: t('sso.methods.heading') });
      await methods.getByText(t('sso.methods.passwordNotSet')).waitFor();
      // No current password to give: the password section says how to get one instead of the change form.
      await page.getByRole('region', { name: t('password.heading') }).getByText(t('sso.password.none')).waitFor();
      const unlink = methods.getByRole('button', { name: new RegExp(`^${t('sso.methods.unlink')}`) });
      const isFocused = (locator: typeof unlink) => locator.evaluate((element) => element === document.activeElement);
      // From the keyboard: the dialog takes the focus to its Unlink; Escape ends it, the focus back where it was.
      await unlink.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: t('sso.methods.unlinkTitle', { label: LABEL }) });
      const confirm = dialog.getByRole('button', { name: t('sso.methods.unlinkButton') });
      await dialog.waitFor();
      assert.ok(await isFocused(confirm), 'the dialog focuses its Unlink');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.ok(await isFocused(unlink), 'Escape gives the focus back to Unlink');

      await unlink.click();
      await confirm.click();
      await dialog.waitFor({ state: 'hidden' });
      const row = methods.getByRole('listitem');
      await row.getByRole('alert').filter({ hasText: t('sso.methods.lastMethod') }).waitFor();
      assert.equal(await row.count(), 1, 'still linked');
      assert.ok(await isFocused(unlink), 'the focus is back on Unlink');
      await checkBothSchemes(session, 'unlink-refused');
      await sectionShots(page, shape, 'unlink-refused');

      // No answer at all: said in the row too.
      await page.route('**/api/v1/users/me/identities/*', (route) => route.abort());
      await unlink.click();
      await confirm.click();
      await row.getByRole('alert').filter({ hasText: t('error.network') }).waitFor();
      assert.equal(await row.getByText(t('sso.methods.lastMethod')).count(), 0, 'the earlier refusal made way');
      await page.unroute('**/api/v1/users/me/identities/*');
      // The refused DELETE and the aborted one are logged by the browser; nothing else may be.
      assert.deepEqual(problems.filter((problem) => !problem.includes('status of 409') && !problem.includes('net::ERR_FAILED')), []);
    } finally {
      await session.context.close();
    }
  });

  test('linking an identity another account holds is refused in words on the settings page', { timeout: 90_000 }, async () => {
    const taken = providerAccount();
    provider.setNextLogin(taken);
    const holder = await openSession(browser, SCREEN_SHAPES[0]!, 'sso');
    try {
      await holder.visit(`${instance.baseUrl}/login`);
      await Promise.all([holder.page.waitForURL((url) => url.pathname === '/'), providerButton(holder.page, holder.t).click()]);
    } finally {
      await holder.context.close();
    }
    await resetRateLimits(instance);
    const { client } = await createVerifiedUser(instance);
    const session = await signedInSession(client.sessionCookie!, SCREEN_SHAPES[0]!);
    const { page, t, problems } = session;
    try {
      await session.visit(`${instance.baseUrl}/settings`);
      const methods = page.getByRole('region', { name: t('sso.methods.heading') });
      await Promise.all([page.waitForURL((url) => url.searchParams.has('error')), methods.getByRole('link', { name: t('sso.methods.link', { label: LABEL }) }).click()]);
      assert.equal(new URL(page.url()).searchParams.get('error'), 'oidc_identity_taken');
      await waitForIslands(page);
      await methods.getByRole('alert').filter({ hasText: 'This Pondcloak account is already linked to another Dorfteich account.' }).waitFor();
      await methods.getByText(t('sso.methods.empty')).waitFor();
      await session.check('link-taken');
      await sectionShots(page, SCREEN_SHAPES[0]!, 'link-taken');

      // A link whose flow cookie the callback could not read lands on the login page; signed in, that sends on to the settings.
      await session.visit(`${instance.baseUrl}/login?error=oidc_state_invalid`);
      assert.equal(new URL(page.url()).pathname, '/settings');
      await methods.getByRole('alert').filter({ hasText: t('sso.link.oidc_state_invalid', { label: LABEL }) }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });
});
