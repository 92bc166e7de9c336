/**
 * Search in Chromium: from the header box to `/search`, a query without its diacritics finds
 * the page with the match highlighted, pond chip shown; a page the reader may not read never
 * shows; the pond filter; no hits said in words. Desktop in English, phone in German; axe on
 * each screen. Screenshots as `search-<shape>-<screen>.png`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { revealSearchBox } from './headerSearch.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('search', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`header box, diacritics folded, highlights, nothing unreadable, filters, no hits (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const reader = await createVerifiedUser(instance);
      const stranger = await createVerifiedUser(instance);
      const word = `Bäume${shape.locale}${Date.now() % 100000}`;
      const plain = word.replace('ä', 'a');
      const pond = (await reader.client.post('/ponds', { name: shape.locale === 'de' ? 'Waldteich' : 'Forest pond' })).body as { id: string; slug: string };
      await reader.client.post(`/ponds/${pond.id}/pages`, { title: `${word} am Ufer`, markdown: `Die ${word} stehen am Ufer.` });
      const hidden = (await stranger.client.post('/ponds', { name: 'Hidden' })).body as { id: string };
      await stranger.client.post(`/ponds/${hidden.id}/pages`, { title: `${word} geheim`, markdown: 'Secret.' });

      const session = await openSession(browser, shape, 'search');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: reader.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/`);
        const box = page.getByRole('combobox', { name: t('search.headerLabel') });
        await revealSearchBox(page, t);
        await box.fill(plain);
        await Promise.all([page.waitForURL(/\/search\?q=/), box.press('Enter')]);
        const hits = page.locator('.search-hit');
        await hits.first().waitFor();
        assert.equal(await hits.count(), 1, 'only the readable page');
        assert.equal(await hits.first().locator('h2 mark').first().textContent(), word, 'the match highlighted as written');
        assert.ok(!(await page.content()).includes('geheim'), 'the page of a pond the reader has no access to never shows');
        await hits.first().locator('.chip-pond').waitFor();
        await session.check('results');

        // The pond filter keeps the hit; a query without hits says so.
        await page.getByLabel(t('search.pond')).selectOption(pond.id);
        await Promise.all([page.waitForURL(/pond=/), page.getByRole('button', { name: t('search.submit') }).click()]);
        assert.equal(await page.locator('.search-hit').count(), 1);
        await session.visit(`${instance.baseUrl}/search?q=${encodeURIComponent(`${plain}zzz`)}`);
        await page.getByText(t('search.none', { query: `${plain}zzz` })).waitFor();
        await session.check('none');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
