/**
 * The setup wizard without mail, in a real Chromium, on a desktop in English and a phone in
 * German: a skipped Mail step stays skipped across a reload and in a fresh tab (the wizard
 * resumes at Registration with Mail marked skipped), choosing open registration warns what that means
 * without mail, and the summary repeats the warning. No console errors or CSP violations, and
 * no serious axe finding on any step (site/e2e/axe.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, waitForIslands, walkSetupToMailStep } from './browserSession.ts';

describe('setup wizard without mail in Chromium', () => {
  let browser: Browser;

  before(async () => {
    await ensureSiteBuilt();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  for (const shape of SCREEN_SHAPES) {
    test(`a skipped Mail step stays skipped across a reload; open registration without mail is warned about (${shape.name})`, { timeout: 90_000 }, async () => {
      // One instance per run: the wizard happens once per instance.
      const instance = await startTestInstance({ site: true });
      const { context, page, t, problems, check, visit } = await openSession(browser, shape, 'setup-without-mail');
      try {
        await visit(instance.baseUrl);
        assert.equal(new URL(page.url()).pathname, '/setup');
        await walkSetupToMailStep(page, t, async (step) => {
          if (step !== 'setup-admin') await check(step.replace('setup-', ''));
        });
        await page.getByRole('button', { name: t('setup.smtp.skip') }).click();
        await page.getByRole('heading', { name: t('setup.registration.heading') }).waitFor();

        // A reload, and a tab opened afresh (nothing kept in the browser but the session
        // cookie), start from what the server knows: the skip was saved there.
        await page.reload();
        await waitForIslands(page);
        await page.getByRole('heading', { name: t('setup.registration.heading') }).waitFor();
        const freshTab = await context.newPage();
        await freshTab.goto(`${instance.baseUrl}/setup`);
        await waitForIslands(freshTab);
        await freshTab.getByRole('heading', { name: t('setup.registration.heading') }).waitFor();
        await freshTab.close();
        const progress = page.getByRole('navigation', { name: t('setup.progress') });
        assert.match((await progress.locator('[aria-current="step"]').textContent()) ?? '', new RegExp(t('setup.step.registration')));
        const mailStep = progress.getByRole('listitem').filter({ hasText: t('setup.step.smtp') });
        assert.match((await mailStep.textContent()) ?? '', new RegExp(`\\(${t('setup.stepSkipped')}\\)`), 'the Mail step is marked skipped');

        const warning = page.getByText(t('setup.registration.noMailWarning'));
        await page.getByLabel(t('setup.registration.closed')).check();
        assert.equal(await warning.count(), 0, 'closed registration needs no warning');
        await page.getByLabel(t('setup.registration.open')).check();
        await warning.waitFor();
        assert.equal(await page.getByText(t('setup.registration.openHintNoMail')).count(), 1, 'the open choice says what it means without mail');
        await check('registration');

        await page.getByRole('button', { name: t('setup.continue') }).click();
        await page.getByRole('heading', { name: t('setup.done.heading') }).waitFor();
        await warning.waitFor();
        assert.match((await page.locator('dl.summary').textContent()) ?? '', new RegExp(t('setup.done.mailNotConfigured')));
        await check('done');

        assert.deepEqual(problems, [], 'no console errors or CSP violations');
      } finally {
        await context.close();
        await instance.close();
      }
    });
  }
});
