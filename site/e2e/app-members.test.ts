/**
 * Members in Chromium: a pond admin adds a member by username, changes the role, sees the
 * seats count, removes the member after a confirmation; an unknown name and demoting the last
 * admin are refused in words next to their cause. Desktop in English, phone in German; axe.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

describe('members', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`add, change role, refusals in words, remove (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const admin = await createVerifiedUser(instance);
      const other = await createVerifiedUser(instance);
      const pond = (await admin.client.post('/ponds', { name: shape.locale === 'de' ? 'Mitgliederteich' : 'Members pond' })).body as { id: string; slug: string };
      const displayNameOf = async (client: typeof admin.client) => ((await client.get('/users/me')).body as { displayName: string }).displayName;
      const names = { admin: await displayNameOf(admin.client), other: await displayNameOf(other.client) };
      const roleOf = async (username: string) =>
        ((await admin.client.get(`/ponds/${pond.id}/members`)).body as { groups: { members: { username: string; grantedRole: string }[] }[] }).groups.flatMap((group) => group.members).find((member) => member.username === username)?.grantedRole;

      const session = await openSession(browser, shape, 'members');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: admin.client.sessionCookie!, url: instance.baseUrl }]);
      try {
        await session.visit(`${instance.baseUrl}/${pond.slug}/-/members`);
        const form = page.locator('.add-member form');
        await form.getByLabel(t('members.login')).fill('no-such-person-anywhere');
        await form.getByRole('button', { name: t('members.addSubmit') }).click();
        await form.locator('.alert-error').waitFor();
        await session.check('unknown');

        await form.getByLabel(t('members.login')).fill(other.user.username);
        await form.getByRole('button', { name: t('members.addSubmit') }).click();
        await page.getByText(t('members.added', { name: names.other })).waitFor();
        assert.equal(await roleOf(other.user.username), 'reader');
        const row = page.locator(`[data-member="${other.user.username}"]`);
        await row.getByLabel(t('members.roleOf', { name: names.other })).selectOption('editor');
        await page.getByText(t('members.roleChanged', { name: names.other })).waitFor();
        assert.equal(await roleOf(other.user.username), 'editor');
        await page.getByText(`${t('members.editorSeats')}:`, { exact: false }).waitFor();

        // The last admin cannot step down: said next to the admin's own row.
        const self = page.locator(`[data-member="${admin.user.username}"]`);
        await self.getByLabel(t('members.roleOf', { name: names.admin })).selectOption('reader');
        await self.locator('.field-error').waitFor();
        assert.equal(await roleOf(admin.user.username), 'pond_admin');
        // The refusal shows first; the select snaps back right after (in the same task's promise chain).
        const adminRole = self.getByLabel(t('members.roleOf', { name: names.admin }));
        await adminRole.evaluate((select) => new Promise<void>((resolve, reject) => {
          const started = Date.now();
          const check = () => ((select as HTMLSelectElement).value === 'pond_admin' ? resolve() : Date.now() - started > 5000 ? reject(new Error(`the choice stayed ${(select as HTMLSelectElement).value}`)) : requestAnimationFrame(check));
          check();
        }));
        assert.equal(await adminRole.inputValue(), 'pond_admin', 'the choice snapped back');
        await session.check('last-admin');

        await row.getByRole('button', { name: t('members.remove') }).click();
        await row.getByText(t('members.removeQuestion', { name: names.other })).waitFor();
        await row.getByRole('button', { name: t('members.removeConfirm') }).click();
        await page.getByText(t('members.removed', { name: names.other })).waitFor();
        assert.equal(await roleOf(other.user.username), undefined);
        await session.check('removed');
        // The browser logs the two refusals asked for (404 unknown user, 409 last admin); nothing else.
        assert.deepEqual(problems.filter((problem) => !/status of (404|409)/.test(problem)), []);
      } finally {
        await context.close();
      }
    });
  }
});
