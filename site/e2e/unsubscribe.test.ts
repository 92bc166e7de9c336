/**
 * The unsubscribe link of a digest mail in Chromium, as someone opens it from their mail on a
 * desktop in English and a phone in German, light and dark: the confirmation page, its one
 * button, the done page and the page for a broken link. axe finds nothing, every Tab stop shows
 * its focus ring, nothing sticks out sideways, the page's own policy refuses nothing it needs
 * (a CSP violation would land in the console), and the browser ends up with no cookie.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { signUnsubscribeToken } from '../../api/auth/unsubscribeTokens.ts';
import { User } from '../../api/models/index.ts';
import { completeSetup } from '../../api/testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { launchChromium, openSession, SCREEN_SHAPES } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

const TEXTS = {
  en: { confirm: 'Stop e-mail summaries?', button: 'Stop e-mail summaries', done: 'E-mail summaries stopped', invalid: 'This link does not work' },
  de: { confirm: 'E-Mail-Zusammenfassungen abbestellen?', button: 'E-Mail-Zusammenfassungen abbestellen', done: 'E-Mail-Zusammenfassungen abbestellt', invalid: 'Dieser Link funktioniert nicht' },
};

describe('unsubscribe pages', () => {
  let instance: TestInstance;
  let browser: Browser;
  let counter = 0;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await instance?.close();
  });

  for (const shape of SCREEN_SHAPES) {
    test(`confirm, stop, and a broken link (${shape.name})`, { timeout: 60_000 }, async () => {
      counter += 1;
      const user = await User.create({ username: `leaving${counter}`, email: `leaving${counter}@example.org`, displayName: 'Lena Lindqvist-Øyehaug', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
      const token = signUnsubscribeToken(instance.services.config.sessionSecret, user.id);
      const texts = TEXTS[shape.locale];
      const session = await openSession(browser, shape, 'unsubscribe');
      const { page, problems, context } = session;
      try {
        await page.goto(`${instance.baseUrl}/api/v1/unsubscribe?token=${encodeURIComponent(token)}`);
        await page.getByRole('heading', { level: 1, name: texts.confirm }).waitFor();
        assert.equal(await page.getAttribute('html', 'lang'), shape.locale);
        await checkBothSchemes(session, 'confirm');
        const button = page.getByRole('button', { name: texts.button });
        const box = await button.boundingBox();
        assert.ok(box && box.height >= 44, `the button is a comfortable target (${box?.height}px high)`);
        assert.equal((await User.findByPk(user.id, { rejectOnEmpty: true })).digestFrequency, 'hourly', 'opening the page changes nothing');

        await button.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: texts.done }).waitFor();
        await checkBothSchemes(session, 'done');
        assert.equal((await User.findByPk(user.id, { rejectOnEmpty: true })).digestFrequency, 'off');

        await page.goto(`${instance.baseUrl}/api/v1/unsubscribe?token=${encodeURIComponent(`${token.slice(0, -3)}xyz`)}`);
        await page.getByRole('heading', { level: 1, name: texts.invalid }).waitFor();
        await checkBothSchemes(session, 'invalid');

        assert.deepEqual(await context.cookies(), [], 'no cookie was set');
        // The broken link's page answers 400, which Chromium reports; anything else (a CSP violation) fails.
        assert.deepEqual(problems.filter((problem) => !problem.includes('status of 400')), [], 'no console errors (CSP violations land there)');
      } finally {
        await context.close();
      }
    });
  }
});
