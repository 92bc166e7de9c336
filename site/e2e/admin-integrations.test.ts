/**
 * `/admin/integrations` in Chromium: the Site Admin reaches it from the header's user menu,
 * finds both switches off, the endpoint addresses, the pond opt-in note and the links to the
 * API reference and the token settings; turns the REST API on and saves, finds it on after a
 * reload (and in the instance settings), then MCP, then both off again; a failing save is said
 * in words. A visitor is sent to sign in, a signed-in non-admin gets the 404 page and no link.
 * On a desktop in English and a phone in German, light and dark: axe finds nothing, every Tab
 * stop shows its focus ring, nothing sticks out sideways. Screenshots as
 * `admin-integrations-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits, signInAdmin } from '../../api/testing/fixtures.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES, waitForIslands } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';
import { checkBothSchemes } from './screenChecks.ts';

useSiteUnderTest();

const SETTINGS_ROUTE = '**/api/v1/admin/settings';

describe('who reaches /admin/integrations', () => {
  test('a visitor is sent to sign in; a non-admin gets the 404 page and no link to it', { timeout: 60_000 }, async () => {
    await resetRateLimits(instance);
    const visitor = await fetch(`${instance.baseUrl}/admin/integrations`, { redirect: 'manual' });
    assert.equal(visitor.status, 302);
    assert.equal(visitor.headers.get('location'), '/login?next=%2Fadmin%2Fintegrations');

    const en = createTranslator('en');
    const { client } = await createVerifiedUser(instance);
    const direct = await fetch(`${instance.baseUrl}/admin/integrations`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
    assert.equal(direct.status, 404);
    const html = await direct.text();
    assert.ok(html.includes(en('notFound.title')), 'the site 404 page');
    for (const hint of [en('adminIntegrations.title'), '/api/public/v1', '/api/mcp']) assert.ok(!html.includes(hint), `the 404 page mentions ${hint}`);

    const session = await openSession(browser, SCREEN_SHAPES[0]!, 'admin-integrations');
    await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
    try {
      await session.visit(`${instance.baseUrl}/admin/integrations`);
      await session.page.getByRole('heading', { level: 1, name: session.t('notFound.title') }).waitFor();
      await session.page.locator('.user-menu-button').click();
      await session.page.getByRole('menuitem', { name: session.t('nav.settings') }).waitFor();
      assert.equal(await session.page.getByRole('menuitem', { name: session.t('nav.adminIntegrations') }).count(), 0, 'no Integrations in the menu');
      await session.screenshot('not-admin');
    } finally {
      await session.context.close();
    }
  });
});

describe('the Site Admin switches the API and MCP', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`toggle, save, reload (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await signInAdmin(instance);
      assert.equal((await admin.patch('/admin/settings', { 'api.enabled': false, 'mcp.enabled': false })).status, 200);
      const session = await openSession(browser, shape, 'admin-integrations');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.sessionCookie!, url: instance.baseUrl }]);
      const apiSwitch = page.getByRole('checkbox', { name: t('adminIntegrations.apiSwitch') });
      const mcpSwitch = page.getByRole('checkbox', { name: t('adminIntegrations.mcpSwitch') });
      const save = page.getByRole('button', { name: t('adminIntegrations.save'), exact: true });
      const stored = async () => {
        const settings = (await admin.get('/admin/settings')).body as Record<string, unknown>;
        return [settings['api.enabled'], settings['mcp.enabled']];
      };
      try {
        // The user menu leads here and marks the page shown.
        await session.visit(`${instance.baseUrl}/`);
        await page.locator('.user-menu-button').click();
        await page.getByRole('menuitem', { name: t('nav.adminIntegrations') }).click();
        await page.waitForURL((url) => url.pathname === '/admin/integrations');
        await waitForIslands(page);
        await page.getByRole('heading', { level: 1, name: t('adminIntegrations.title') }).waitFor();
        await page.locator('.user-menu-button').click();
        assert.equal(await page.getByRole('menuitem', { name: t('nav.adminIntegrations') }).getAttribute('aria-current'), 'page');
        await page.keyboard.press('Escape');

        // Off by default, with what each opens, where clients connect and what else it takes.
        assert.equal(await apiSwitch.isChecked(), false);
        assert.equal(await mcpSwitch.isChecked(), false);
        await page.getByText(`${instance.baseUrl}/api/public/v1`, { exact: true }).waitFor();
        await page.getByText(`${instance.baseUrl}/api/mcp`, { exact: true }).waitFor();
        await page.getByText(t('adminIntegrations.pondOptIn')).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminIntegrations.reference') }).getAttribute('href'), '/api-reference');
        assert.equal(await page.getByRole('link', { name: t('adminIntegrations.tokensLink') }).getAttribute('href'), '/settings#api-tokens');
        await checkBothSchemes(session, 'off');

        // The REST API on, saved, still on after a reload.
        await apiSwitch.check();
        await save.click();
        await page.getByText(t('adminIntegrations.saved')).waitFor();
        assert.deepEqual(await stored(), [true, false]);
        await checkBothSchemes(session, 'api-on');
        await session.visit(`${instance.baseUrl}/admin/integrations`);
        assert.equal(await apiSwitch.isChecked(), true);
        assert.equal(await mcpSwitch.isChecked(), false);

        // MCP on from the keyboard (Space on the box, Enter on Save).
        await mcpSwitch.focus();
        await page.keyboard.press('Space');
        await save.focus();
        await page.keyboard.press('Enter');
        await page.getByText(t('adminIntegrations.saved')).waitFor();
        assert.deepEqual(await stored(), [true, true]);
        await session.visit(`${instance.baseUrl}/admin/integrations`);
        assert.equal(await mcpSwitch.isChecked(), true);

        // A save that fails is said in words; the stored switches are untouched.
        await page.route(SETTINGS_ROUTE, (route) => (route.request().method() === 'PATCH' ? route.abort('failed') : route.continue()));
        await apiSwitch.uncheck();
        await save.click();
        await page.getByRole('alert').filter({ hasText: t('error.network') }).waitFor();
        assert.deepEqual(await stored(), [true, true]);
        await checkBothSchemes(session, 'save-failed');
        await page.unroute(SETTINGS_ROUTE);

        // Both off again.
        await mcpSwitch.uncheck();
        await save.click();
        await page.getByText(t('adminIntegrations.saved')).waitFor();
        assert.deepEqual(await stored(), [false, false]);
        await session.visit(`${instance.baseUrl}/admin/integrations`);
        assert.equal(await apiSwitch.isChecked(), false);
        assert.equal(await mcpSwitch.isChecked(), false);

        assert.deepEqual(problems.filter((problem) => !problem.includes('net::ERR_FAILED')), []);
      } finally {
        await context.close();
      }
    });
  }
});
