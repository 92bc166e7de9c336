/**
 * The label tree in Chromium: create a label and one inside it, recolour, move to the top,
 * delete with its sub-labels after a confirmation that counts the pages losing them; each step
 * checked through the API. Desktop in English, phone in German; axe on each screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('labels', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`create, nest, recolour, move, delete with the page count (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { client } = await createVerifiedUser(instance);
      const pond = (await client.post('/ponds', { name: shape.locale === 'de' ? 'Labelteich' : 'Label pond' })).body as { id: string; slug: string };
      const page1 = (await client.post(`/ponds/${pond.id}/pages`, { title: 'One' })).body as { id: string };
      const page2 = (await client.post(`/ponds/${pond.id}/pages`, { title: 'Two' })).body as { id: string };
      const labels = async () => ((await client.get(`/ponds/${pond.id}/labels`)).body as { items: { id: string; name: string; color: string; parentId: string | null }[] }).items;

      const session = await openSession(browser, shape, 'labels');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/labels`);
        await page.getByText(t('labels.none')).waitFor();
        const form = page.locator('.new-label form');
        await form.getByLabel(t('labels.name')).fill('Projects');
        await form.getByRole('button', { name: t('labels.create') }).click();
        await page.getByText(t('labels.created', { name: 'Projects' })).waitFor();
        await form.getByLabel(t('labels.name')).fill('Bridges');
        await form.getByLabel(t('labels.colourChoice', { colour: '#2e7d32' })).check();
        await form.getByLabel(t('labels.parent')).selectOption({ label: 'Projects' });
        await form.getByRole('button', { name: t('labels.create') }).click();
        await page.getByText(t('labels.created', { name: 'Bridges' })).waitFor();
        let listed = await labels();
        const projects = listed.find((label) => label.name === 'Projects')!;
        const bridges = listed.find((label) => label.name === 'Bridges')!;
        assert.deepEqual([bridges.parentId, bridges.color], [projects.id, '#2e7d32']);
        await client.request('PUT', `/pages/${page1.id}/labels`, { body: { labelIds: [projects.id] } });
        await client.request('PUT', `/pages/${page2.id}/labels`, { body: { labelIds: [bridges.id] } });

        // Recolour Projects, move Bridges to the top, then back for the delete.
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/labels`);
        const row = (name: string) => page.locator(`[data-label="${name}"]`);
        await row('Projects').getByRole('button', { name: t('labels.colour'), exact: true }).click();
        await row('Projects').getByRole('button', { name: t('labels.colourChoice', { colour: '#6d28d9' }) }).click();
        await page.getByText(t('labels.saved', { name: 'Projects' })).waitFor();
        assert.equal((await labels()).find((label) => label.id === projects.id)?.color, '#6d28d9');
        await row('Bridges').getByRole('button', { name: t('labels.move') }).click();
        await row('Bridges').getByLabel(t('labels.parent')).selectOption('');
        await row('Bridges').locator('.label-panel').getByRole('button', { name: t('labels.moveSubmit') }).click();
        await page.getByText(t('labels.saved', { name: 'Bridges' })).waitFor();
        assert.equal((await labels()).find((label) => label.id === bridges.id)?.parentId, null);
        await client.patch(`/labels/${bridges.id}`, { parentId: projects.id });
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/labels`);

        await row('Projects').getByRole('button', { name: t('labels.delete') }).click();
        await page.getByText(t('labels.deleteQuestion', { name: 'Projects', labels: 1, pages: 2 })).waitFor();
        await session.check('delete-question');
        await row('Projects').locator('.label-panel').getByRole('button', { name: t('labels.deleteConfirm') }).click();
        await page.getByText(t('labels.deleted', { name: 'Projects' })).waitFor();
        listed = await labels();
        assert.equal(listed.length, 0, 'deleted with its sub-label');
        await session.check('empty');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
