/**
 * `/admin/settings` in Chromium: the Site Admin finds the instance's settings as stored, changes
 * the name, registration, trash days, the upload allowlist, the SVG policy and two default
 * quotas (one to unlimited), saves, and finds exactly those keys changed (through the API and
 * after a reload) and one `settings.changed` audit entry naming them; problems found in the
 * browser and problems the API names (a deeper field path) show at their fields with focus on
 * the first, and nothing is saved. A visitor is sent to sign in, a non-admin gets the 404 page.
 * On a desktop in English and a phone in German, light and dark: axe, focus rings, no sideways
 * scroll. Screenshots as `admin-settings-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits, signInAdmin } from '../../api/testing/fixtures.ts';
import { AuditEntry } from '../../api/models/index.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';
import { checkBothSchemes } from './screenChecks.ts';

useSiteUnderTest();

const DEFAULTS = {
  'instance.name': 'Testteich',
  'registration.mode': 'closed',
  'trash.retentionDays': 30,
  'upload.allowedExtensions': ['pdf', 'txt', 'md', 'csv', 'docx', 'odt', 'xlsx', 'ods', 'pptx', 'odp', 'zip'],
  'upload.svgPolicy': 'sanitize',
  'quota.readers_per_pond': 1000,
  'quota.storage_bytes': 5 * 1024 ** 3,
};

describe('who reaches /admin/settings', () => {
  test('a visitor is sent to sign in; a non-admin gets the 404 page', { timeout: 60_000 }, async () => {
    await resetRateLimits(instance);
    const visitor = await fetch(`${instance.baseUrl}/admin/settings`, { redirect: 'manual' });
    assert.equal(visitor.status, 302);
    assert.equal(visitor.headers.get('location'), '/login?next=%2Fadmin%2Fsettings');
    const { client } = await createVerifiedUser(instance);
    const direct = await fetch(`${instance.baseUrl}/admin/settings`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
    assert.equal(direct.status, 404);
    const html = await direct.text();
    assert.ok(html.includes(createTranslator('en')('notFound.title')));
    assert.ok(!html.includes(createTranslator('en')('adminSettings.title')), 'the 404 page does not name the screen');
  });
});

describe('the Site Admin changes instance settings', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`edit, refusals at their fields, save, reload (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await signInAdmin(instance);
      const reset = await admin.patch('/admin/settings', { ...DEFAULTS, 'instance.name': 'Testteich' });
      assert.equal(reset.status, 200, reset.text);
      const session = await openSession(browser, shape, 'admin-settings');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.sessionCookie!, url: instance.baseUrl }]);
      const stored = async () => (await admin.get('/admin/settings')).body as Record<string, unknown>;
      const save = page.getByRole('button', { name: t('adminSettings.save'), exact: true });
      const name = page.getByLabel(t('adminSettings.name'));
      const trashDays = page.getByLabel(t('adminSettings.trashDays'));
      const extensions = page.getByLabel(t('adminSettings.extensions'));
      const storage = page.getByRole('textbox', { name: `${t('adminSettings.quota.storage')} (GiB)` });
      const readersUnlimited = page.getByRole('group', { name: t('adminSettings.quota.readers') }).getByRole('checkbox', { name: t('adminSettings.unlimited') });
      try {
        await session.visit(`${instance.baseUrl}/admin/settings`);
        const adminNavigation = page.getByRole('navigation', { name: t('adminNav.label') });
        assert.equal(await adminNavigation.getByRole('link', { name: t('adminNav.settings') }).getAttribute('aria-current'), 'page');
        // As stored: the name, the allowlist as text, sizes in GiB, closed registration.
        assert.equal(await name.inputValue(), 'Testteich');
        assert.equal(await extensions.inputValue(), DEFAULTS['upload.allowedExtensions'].join(', '));
        assert.equal(await storage.inputValue(), '5');
        assert.equal(await page.getByRole('radio', { name: t('adminSettings.registration.closed') }).isChecked(), true);
        await checkBothSchemes(session, 'stored');

        // Problems found in the browser: at their fields, focus on the first, nothing sent.
        const auditBefore = await AuditEntry.count({ where: { action: 'settings.changed' } });
        await name.fill('');
        await trashDays.fill('0');
        await extensions.fill('pdf, tar.gz');
        await save.click();
        await page.getByText(t('adminSettings.error.name')).waitFor();
        await page.getByText(t('adminSettings.error.days')).waitFor();
        await page.getByText(t('adminSettings.error.extension', { extension: 'tar.gz' })).waitFor();
        assert.ok(await name.evaluate((element) => element === document.activeElement), 'focus on the first field in error');
        assert.equal(await name.getAttribute('aria-invalid'), 'true');
        await checkBothSchemes(session, 'refused');
        assert.equal((await stored())['instance.name'], 'Testteich');

        // A problem the API names, deeper than the key: shown at the allowlist.
        await name.fill('Unser Teich');
        await trashDays.fill('14');
        await extensions.fill('pdf, odt, md');
        await page.route('**/api/v1/admin/settings', (route) =>
          route.request().method() === 'PATCH'
            ? route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: { code: 'validation_failed', message: 'Check the marked fields.', details: { fields: [{ path: 'upload.allowedExtensions.1', message: 'Not this one.' }] } } }) })
            : route.continue(),
        );
        await save.click();
        await page.getByText('Not this one.').waitFor();
        assert.ok(await extensions.evaluate((element) => element === document.activeElement), 'focus on the field the API named');
        await page.unroute('**/api/v1/admin/settings');
        assert.equal(await AuditEntry.count({ where: { action: 'settings.changed' } }), auditBefore, 'nothing saved, nothing audited');

        // Saved: exactly the changed keys, the readers unlimited, the storage in bytes.
        await page.getByRole('radio', { name: t('adminSettings.registration.open') }).check();
        await page.getByRole('radio', { name: t('adminSettings.svg.reject') }).check();
        await storage.fill(shape.locale === 'de' ? '2,5' : '2.5');
        await readersUnlimited.check();
        await save.click();
        await page.getByText(t('adminSettings.saved', { count: 7 })).waitFor();
        const after = await stored();
        assert.deepEqual(
          [after['instance.name'], after['registration.mode'], after['trash.retentionDays'], after['upload.allowedExtensions'], after['upload.svgPolicy'], after['quota.readers_per_pond'], after['quota.storage_bytes'], after['quota.editors_per_pond']],
          ['Unser Teich', 'open', 14, ['pdf', 'odt', 'md'], 'reject', null, 2.5 * 1024 ** 3, 100],
        );
        const entries = await AuditEntry.findAll({ where: { action: 'settings.changed' }, order: [['id', 'DESC']], limit: 1 });
        assert.deepEqual(Object.keys((entries[0]!.details as { changes: Record<string, unknown> }).changes).sort(), [
          'instance.name',
          'quota.readers_per_pond',
          'quota.storage_bytes',
          'registration.mode',
          'trash.retentionDays',
          'upload.allowedExtensions',
          'upload.svgPolicy',
        ]);
        await checkBothSchemes(session, 'saved');

        // After a reload the fields show what was stored; the storage quota reads 2.5 GiB.
        await session.visit(`${instance.baseUrl}/admin/settings`);
        assert.equal(await name.inputValue(), 'Unser Teich');
        assert.equal(await storage.inputValue(), '2.5');
        assert.equal(await readersUnlimited.isChecked(), true);
        assert.equal(await page.getByRole('textbox', { name: `${t('adminSettings.quota.readers')} (${t('adminSettings.unit.seats')})` }).isDisabled(), true);
        assert.equal(await page.getByRole('radio', { name: t('adminSettings.registration.open') }).isChecked(), true);
        // The one console line: the browser's note on the 400 the route above answered.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 400')), []);
      } finally {
        await context.close();
        await admin.patch('/admin/settings', DEFAULTS);
      }
    });
  }
});
