/**
 * `/admin` and `/admin/system` in Chromium. A visitor is sent to sign in, a signed-in
 * non-admin gets the 404 page. The overview shows the counts, each readiness check with its
 * state in words, the jobs' last runs and the newest audit entries. The system panel: "Run now"
 * says the job started (and the start is audited); a second click while it waits for the
 * worker shows the 409 in words next to the job; the audit log filters by actor, action and
 * dates (the "to" day inclusive) and pages with "Older entries"; the largest ponds come by
 * storage. On a desktop in English and a phone in German, light and dark: axe finds nothing,
 * nothing scrolls sideways, every Tab stop shows its focus. Screenshots as
 * `admin-system-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { QueryTypes } from 'sequelize';
import { User } from '../../api/models/index.ts';
import { seedSharedPond } from '../../api/testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, type BrowserSession } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

const en = createTranslator('en');
const PAGING_ENTRIES = 55;

let instance: TestInstance;
let admin: TestClient;
let browser: Browser;

async function sql(query: string, replacements: Record<string, unknown> = {}) {
  return instance.services.sequelize.query(query, { replacements, type: QueryTypes.SELECT });
}

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  admin = await completeSetup(instance);
  const adminId = (await User.findOne({ where: { username: 'admin' }, rejectOnEmpty: true })).id;
  const { user: alice } = await createVerifiedUser(instance);
  // Entries on known days, far ahead so they come first: two days of alice's, one of the admin's.
  const entry = (actor: { id: string; username: string } | null, action: string, at: string, details: Record<string, unknown> = {}) =>
    sql(`INSERT INTO audit_entries (actor_id, actor_name, action, details, ip, created_at) VALUES (:id, :name, :action, CAST(:details AS jsonb), '203.0.113.9', :at)`, {
      id: actor?.id ?? null,
      name: actor?.username ?? null,
      action,
      details: JSON.stringify(details),
      at,
    });
  await entry(alice, 'e2e.token_created', '2030-03-01T10:00:00Z', { tokenId: 'first' });
  await entry(alice, 'e2e.token_revoked', '2030-03-02T09:00:00Z', { tokenId: 'first' });
  await entry(alice, 'e2e.token_created', '2030-03-03T08:00:00Z', { tokenId: 'second' });
  await entry({ id: adminId, username: 'admin' }, 'e2e.token_created', '2030-03-02T12:00:00Z', { tokenId: 'admins' });
  for (let index = 0; index < PAGING_ENTRIES; index += 1) await entry(null, 'e2e.paging', `2030-02-01T00:${String(index).padStart(2, '0')}:00Z`, { index });
  // A recorded run, and two ponds with files.
  await sql(`INSERT INTO maintenance_job_runs (task, trigger, started_at, duration_ms, outcome) VALUES ('version-thinning', 'scheduled', now() - interval '2 hours', 4200, 'succeeded')`);
  const big = await seedSharedPond(adminId, 'Big archive');
  const small = await seedSharedPond(adminId, 'Small notes');
  await sql(`INSERT INTO files (pond_id, extension, content_type, size_bytes) VALUES (:big, 'pdf', 'application/pdf', 7340032), (:big, 'png', 'image/png', 1024), (:small, 'png', 'image/png', 2048)`, { big: big.id, small: small.id });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

async function signedInSession(client: TestClient, shape = SCREEN_SHAPES[0]!): Promise<BrowserSession> {
  const session = await openSession(browser, shape, 'admin-system');
  assert.ok(client.sessionCookie);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie, url: instance.baseUrl }]);
  return session;
}

describe('who reaches the admin overview and the system panel', () => {
  test('a visitor is sent to sign in; a signed-in non-admin gets the 404 page', { timeout: 60_000 }, async () => {
    const { client } = await createVerifiedUser(instance);
    for (const path of ['/admin', '/admin/system']) {
      const direct = await fetch(`${instance.baseUrl}${path}`, { redirect: 'manual' });
      assert.equal(direct.status, 302, path);
      assert.equal(direct.headers.get('location'), `/login?next=${encodeURIComponent(path)}`);
      const denied = await fetch(`${instance.baseUrl}${path}`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
      assert.equal(denied.status, 404, path);
      const html = await denied.text();
      assert.ok(html.includes(en('notFound.title')));
      for (const hint of [en('adminSystem.jobs'), en('adminOverview.health'), 'trash-purge']) assert.ok(!html.includes(hint), `${path} mentions ${hint}`);
    }
  });
});

describe('the Site Admin', () => {
  beforeEach(async () => {
    await sql('DELETE FROM graphile_worker._private_jobs');
  });

  for (const shape of SCREEN_SHAPES) {
    test(`sees the overview (${shape.name})`, { timeout: 90_000 }, async () => {
      const session = await signedInSession(admin, shape);
      const { page, t, problems } = session;
      try {
        await session.visit(`${instance.baseUrl}/admin`);
        await page.getByRole('heading', { level: 1, name: t('adminOverview.title') }).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminNav.overview') }).getAttribute('aria-current'), 'page');
        const counts = page.getByRole('region', { name: t('adminOverview.counts') });
        const active = Number((await sql(`SELECT count(*) AS count FROM users WHERE status = 'ACTIVE'`) as { count: string }[])[0]!.count);
        await counts.getByText(t('adminOverview.users.ACTIVE', { count: active })).waitFor();
        await counts.getByText('7 MB', { exact: true }).waitFor();
        await counts.getByText(t('adminOverview.storageFiles', { count: 3 })).waitFor();
        const health = page.getByRole('region', { name: t('adminOverview.health') });
        const database = health.locator('[data-check="database"]');
        assert.equal((await database.innerText()).replace(/\s+/g, ' ').trim(), `${t('adminOverview.check.database')} ${t('adminOverview.state.ok')}`);
        assert.match(await health.locator('[data-check="converter"]').innerText(), new RegExp(t('adminOverview.state.not_configured')));
        const jobs = page.getByRole('region', { name: t('adminOverview.jobs') });
        assert.match(await jobs.locator('[data-job="version-thinning"]').innerText(), /4[.,]2 s/);
        assert.match(await jobs.locator('[data-job="trash-purge"]').innerText(), new RegExp(t('adminSystem.never')));
        assert.match(await jobs.locator('[data-job="data-export-purge"]').innerText(), new RegExp(t('adminSystem.status.unavailable')));
        const audit = page.getByRole('region', { name: t('adminOverview.audit') });
        assert.equal(await audit.locator('tbody tr').first().locator('code').innerText(), 'e2e.token_created');
        assert.equal(await audit.getByRole('link', { name: t('adminOverview.auditLink') }).getAttribute('href'), '/admin/system#audit');
        await checkBothSchemes(session, 'overview');
        assert.deepEqual(problems, []);
      } finally {
        await session.context.close();
      }
    });

    test(`runs a job, is refused a second run while it waits, filters and pages the audit log (${shape.name})`, { timeout: 120_000 }, async () => {
      const session = await signedInSession(admin, shape);
      const { page, t, problems } = session;
      const jobRow = (name: string) => page.locator(`tr[data-job="${name}"]`);
      try {
        await session.visit(`${instance.baseUrl}/admin/system`);
        await page.getByRole('heading', { level: 1, name: t('adminSystem.title') }).waitFor();
        assert.match(await jobRow('version-thinning').innerText(), /4[.,]2 s/);
        assert.match(await jobRow('conversion-payload-prune').innerText(), new RegExp(t('adminSystem.notBuilt')));
        assert.equal(await jobRow('conversion-payload-prune').getByRole('button').count(), 0);
        const ponds = page.getByRole('region', { name: t('adminSystem.ponds') });
        assert.deepEqual(await ponds.locator('tbody th .pond-lines > span').allInnerTexts(), ['Big archive', 'Small notes']);
        await checkBothSchemes(session, 'system');

        const runTrash = jobRow('trash-purge').getByRole('button', { name: t('adminSystem.runNowLabel', { job: t('adminSystem.job.trash-purge') }) });
        await runTrash.click();
        await jobRow('trash-purge').getByText(t('adminSystem.started')).waitFor();
        assert.match(await jobRow('trash-purge').innerText(), new RegExp(t('adminSystem.status.running')));
        const audited = await sql(`SELECT details FROM audit_entries WHERE action = 'admin.job_run' ORDER BY id DESC LIMIT 1`);
        assert.equal((audited[0] as { details: { name: string } }).details.name, 'trash-purge');
        // No worker takes it here: it waits, and the run-mutex refuses a second.
        await runTrash.click();
        await jobRow('trash-purge').getByText(t('adminSystem.alreadyRunning')).waitFor();
        assert.equal(await jobRow('version-thinning').getByText(t('adminSystem.alreadyRunning')).count(), 0, 'the refusal stays with its job');
        await checkBothSchemes(session, 'run-refused');
        // No answer at all: said in words, in that job's row.
        await page.route('**/api/v1/admin/system/jobs/version-thinning/run', (route) => route.abort());
        await jobRow('version-thinning').getByRole('button').click();
        await jobRow('version-thinning').getByText(t('error.network')).waitFor();
        await page.unroute('**/api/v1/admin/system/jobs/version-thinning/run');

        // The audit filter: actor, action and a two-day range (the "to" day included).
        const filter = page.getByRole('form', { name: t('adminSystem.filter.label') });
        await filter.getByLabel(t('adminSystem.filter.actor')).fill((await sql(`SELECT username FROM users WHERE username <> 'admin' ORDER BY created_at LIMIT 1`) as { username: string }[])[0]!.username);
        await filter.getByLabel(t('adminSystem.filter.action')).fill('e2e.token_*');
        await filter.getByLabel(t('adminSystem.filter.from')).fill('2030-03-02');
        await filter.getByLabel(t('adminSystem.filter.to')).fill('2030-03-03');
        await Promise.all([page.waitForURL((url) => url.searchParams.get('action') === 'e2e.token_*'), filter.getByRole('button', { name: t('adminSystem.filter.apply') }).click()]);
        const auditRows = page.locator('#audit tbody tr');
        await auditRows.first().waitFor();
        assert.deepEqual(await auditRows.locator('code').allInnerTexts(), ['e2e.token_created', 'e2e.token_revoked'], "alice's two entries of those days, newest first; the admin's is not hers");
        assert.match(await auditRows.first().innerText(), /tokenId: second/);
        await checkBothSchemes(session, 'audit-filtered');

        // Nothing matches: said in words. Then "to" before "from".
        await filter.getByLabel(t('adminSystem.filter.action')).fill('e2e.nothing');
        await Promise.all([page.waitForURL((url) => url.searchParams.get('action') === 'e2e.nothing'), filter.getByRole('button', { name: t('adminSystem.filter.apply') }).click()]);
        await page.getByText(t('adminSystem.audit.emptyFiltered')).waitFor();
        await checkBothSchemes(session, 'audit-none');
        await filter.getByLabel(t('adminSystem.filter.from')).fill('2030-03-04');
        await Promise.all([page.waitForURL((url) => url.searchParams.get('from') === '2030-03-04'), filter.getByRole('button', { name: t('adminSystem.filter.apply') }).click()]);
        await page.getByRole('alert').filter({ hasText: t('adminSystem.filter.reversed') }).waitFor();
        await checkBothSchemes(session, 'audit-reversed');

        // Paging: 55 entries of one action, 25 a page; "Older entries" twice shows the rest, and back.
        await page.getByRole('link', { name: t('adminSystem.filter.clear') }).click();
        await page.waitForURL((url) => url.search === '');
        await filter.getByLabel(t('adminSystem.filter.action')).fill('e2e.paging');
        await Promise.all([page.waitForURL((url) => url.searchParams.get('action') === 'e2e.paging'), filter.getByRole('button', { name: t('adminSystem.filter.apply') }).click()]);
        await auditRows.first().waitFor();
        assert.equal(await auditRows.count(), 25);
        assert.match(await auditRows.first().innerText(), /index: 54/);
        const seen = await auditRows.locator('td.audit-details').allInnerTexts();
        for (let pageNumber = 2; pageNumber <= 3; pageNumber += 1) {
          const previous = page.url();
          await Promise.all([page.waitForURL((url) => url.href !== previous && url.searchParams.has('cursor')), page.getByRole('link', { name: t('adminSystem.audit.older') }).click()]);
          seen.push(...(await auditRows.locator('td.audit-details').allInnerTexts()));
        }
        assert.deepEqual(seen, Array.from({ length: PAGING_ENTRIES }, (_, index) => `index: ${PAGING_ENTRIES - 1 - index}`), 'every entry once, in order');
        assert.equal(await auditRows.count(), PAGING_ENTRIES - 50);
        assert.match(await auditRows.last().innerText(), /index: 0/);
        assert.equal(await page.getByRole('link', { name: t('adminSystem.audit.older') }).count(), 0, 'the last page');
        assert.equal(await filter.getByLabel(t('adminSystem.filter.action')).inputValue(), 'e2e.paging', 'the filter stays');
        await checkBothSchemes(session, 'audit-older');
        await page.getByRole('link', { name: t('adminSystem.audit.newest') }).click();
        await page.waitForURL((url) => !url.searchParams.has('cursor'));
        assert.equal(await auditRows.count(), 25);
        // The 409 is the refusal the test asked for; Chromium logs every refused request.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 409') && !problem.includes('net::ERR_FAILED')), []);
      } finally {
        await session.context.close();
      }
    });
  }
});
