/**
 * Access rules and the explainer in Chromium: a pond admin makes the pond readable by all
 * signed-in users, denies one page to a member, and the explainer names that deny as the
 * deciding rule at the page level; a rule is removed after a confirmation. A page-scope rule is
 * "This page only": the form counts the sub-pages it leaves out, the explainer says why a
 * sub-page stays closed, and "This page and its N sub-pages" opens them all in one step (a
 * label on every page, the rule on the label). Each step checked through the API and, for the
 * public, by a visitor's request. Desktop in English, phone in German; axe on each screen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('access rules and the explainer', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`allow signed-in, deny a page to a member, the explainer names the deciding rule, remove (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const member = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Zugriffsteich' : 'Access pond' })).body as { id: string; slug: string };
      const secret = (await admin.client.post(`/ponds/${pond.id}/pages`, { title: 'Secret plans' })).body as { id: string };
      await admin.client.post(`/ponds/${pond.id}/members`, { user: member.user.username, role: 'editor' });
      const memberName = ((await member.client.get('/users/me')).body as { displayName: string }).displayName;
      const rules = async () => ((await admin.client.get(`/ponds/${pond.id}/grants/access-rules`)).body as { items: { id: string; subject: { type: string }; scope: { type: string }; effect: string }[] }).items;

      const session = await openSession(browser, shape, 'access');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/access`);
        const form = page.locator('.new-rule form');
        await form.getByLabel(t('access.subject'), { exact: true }).selectOption('signed-in');
        await form.getByRole('button', { name: t('access.create') }).click();
        await page.getByText(t('access.created')).waitFor();
        assert.ok((await rules()).some((rule) => rule.subject.type === 'signed-in' && rule.scope.type === 'pond' && rule.effect === 'allow'));

        await form.getByLabel(t('access.subject'), { exact: true }).selectOption('user');
        await form.getByLabel(t('access.member')).selectOption({ label: `${memberName} (@${member.user.username})` });
        await form.getByLabel(t('access.where')).selectOption('page');
        await form.getByLabel(t('access.page'), { exact: true }).selectOption({ label: 'Secret plans' });
        await form.getByLabel(t('access.effectChoice.deny')).check();
        await form.getByRole('button', { name: t('access.create') }).click();
        await page.locator('.rule-deny').waitFor();
        assert.ok((await rules()).some((rule) => rule.subject.type === 'user' && rule.scope.type === 'page' && rule.effect === 'deny'));
        await session.check('rules');

        // The explainer: the member on the secret page, decided by the page-level deny.
        await page.locator('#explain-subject').selectOption({ label: `${memberName} (@${member.user.username})` });
        await page.locator('#explain-page').selectOption({ label: 'Secret plans' });
        await page.getByRole('button', { name: t('explain.submit') }).click();
        const read = page.locator('[data-verdict="read"]');
        await read.waitFor();
        assert.equal(await read.locator('strong').textContent(), t('explain.denied'));
        const expected = t('explain.byDeny', { level: t('explain.level.page'), subject: memberName, role: t('access.role.reader'), scope: t('access.scope.page', { name: 'Secret plans' }) });
        assert.equal((await read.locator('dd span').textContent())?.trim(), expected);
        await session.check('explained');
        const api = (await admin.client.get(`/ponds/${pond.id}/effective-permissions?subjectType=user&subjectId=${member.user.id}&pageId=${secret.id}`)).body as { read: { allowed: boolean; level: string } };
        assert.deepEqual([api.read.allowed, api.read.level], [false, 'page']);

        // Removing the deny, after the confirmation.
        const deny = page.locator('.rule-deny');
        await deny.getByRole('button', { name: t('access.remove') }).click();
        await deny.getByRole('button', { name: t('access.removeConfirm') }).click();
        await page.getByText(t('access.removed')).waitFor();
        assert.ok(!(await rules()).some((rule) => rule.effect === 'deny'));
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });

    test(`"This page only" counts the sub-pages it leaves out; the page and its sub-pages in one step (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Abschnittsteich' : 'Section pond' })).body as { id: string; slug: string };
      const create = async (title: string, parentId?: string) => (await admin.client.post(`/ponds/${pond.id}/pages`, { title, ...(parentId ? { parentId } : {}) })).body as { id: string; slug: string };
      const handbook = await create('Handbook');
      const chapter = await create('Chapter', handbook.id);
      const section = await create('Section', chapter.id);
      await create('Elsewhere');
      const visitorStatus = async (page: { id: string }) => (await fetch(`${instance.baseUrl}/api/v1/pages/${page.id}`)).status;

      const session = await openSession(browser, shape, 'access-section');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/access`);
        const form = page.locator('.new-rule form');
        await form.getByLabel(t('access.subject'), { exact: true }).selectOption('public');
        const where = form.getByLabel(t('access.where'));
        assert.ok((await where.locator('option').allTextContents()).includes(t('access.scopePageChoice')), 'the page option says "This page only"');
        await where.selectOption({ label: t('access.scopePageChoice') });
        await form.getByLabel(t('access.page'), { exact: true }).selectOption({ label: 'Handbook' });
        const note = form.getByText(t('access.pageOnlyNote', { count: 2 }));
        await note.waitFor();
        // The scope choice now names the page's count too.
        assert.ok((await where.locator('option').allTextContents()).includes(t('access.scopeSectionChoiceCount', { count: 2 })));
        await session.check('page-only');

        // "This page only" as it is: the page opens, its sub-pages stay closed, and the explainer says why.
        await form.getByRole('button', { name: t('access.create') }).click();
        await page.getByText(t('access.created')).waitFor();
        assert.deepEqual([await visitorStatus(handbook), await visitorStatus(chapter), await visitorStatus(section)], [200, 404, 404]);
        await page.locator('#explain-subject').selectOption('public');
        await page.locator('#explain-page').selectOption({ label: '\u2003\u2003Section' });
        await page.getByRole('button', { name: t('explain.submit') }).click();
        const read = page.locator('[data-verdict="read"]');
        await read.locator('.above-page').waitFor();
        assert.equal(await read.locator('strong').textContent(), t('explain.denied'));
        assert.match((await read.locator('.above-page').textContent()) ?? '', new RegExp(`Handbook`));
        await session.check('explained-sub-page');

        // The way that includes them, from the same form: one click switches, one submit makes it.
        await form.getByRole('button', { name: t('access.includeSubPages', { count: 2 }) }).click();
        assert.equal(await where.inputValue(), 'section');
        const labelName = form.getByLabel(t('access.sectionLabel'));
        assert.equal(await labelName.inputValue(), 'Handbook', 'the label is named after the page');
        assert.ok(await labelName.evaluate((input) => input === document.activeElement), 'focus moved on to the label name, not lost with the button');
        await labelName.fill('Public handbook');
        await form.getByText(t('access.sectionLabelHint', { count: 2 })).waitFor();
        await session.check('section');
        await form.getByRole('button', { name: t('access.create') }).click();
        await page.getByText(t('access.sectionCreated', { label: 'Public handbook', count: 3 })).waitFor();
        assert.deepEqual([await visitorStatus(handbook), await visitorStatus(chapter), await visitorStatus(section)], [200, 200, 200]);
        const rules = (await admin.client.get(`/ponds/${pond.id}/grants/access-rules`)).body as { items: { subject: { type: string }; scope: { type: string; name: string } }[] };
        assert.ok(rules.items.some((rule) => rule.subject.type === 'public' && rule.scope.type === 'label' && rule.scope.name === 'Public handbook'));
        await page.getByText(t('access.scope.label', { name: 'Public handbook' }), { exact: false }).first().waitFor();
        await session.check('section-created');
        // The new label is offered for the next rule, and the same name is said to be reused.
        await where.selectOption('section');
        await labelName.fill('public HANDBOOK');
        await form.getByText(t('access.sectionLabelExisting')).waitFor();
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});
