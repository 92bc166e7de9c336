/**
 * Members in Chromium: a pond admin adds a member by username, changes the role, sees the
 * seats count, removes the member after a confirmation; an unknown name is refused in words
 * next to its cause; the owner's row offers neither Remove nor another role (the API refuses
 * with owner_membership). Desktop in English, phone in German; axe.
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

        // The owner's row offers no Remove and no other role: the owner always stays pond admin,
        // which the row says; the API refuses removing the owner all the same.
        const self = page.locator(`[data-member="${admin.user.username}"]`);
        await self.getByText(t('members.ownerStays')).waitFor();
        assert.equal(await self.getByRole('button', { name: t('members.remove') }).count(), 0, 'no Remove on the owner');
        assert.equal(await self.getByLabel(t('members.roleOf', { name: names.admin })).count(), 0, 'no role choice on the owner');
        assert.equal(await row.getByRole('button', { name: t('members.remove') }).count(), 1, 'Remove stays on everyone else');
        const refused = await admin.client.request('DELETE', `/ponds/${pond.id}/members/${admin.user.id}`);
        assert.deepEqual([refused.status, refused.body.error.code], [409, 'owner_membership']);
        assert.equal(await roleOf(admin.user.username), 'pond_admin');
        await session.check('owner');

        await row.getByRole('button', { name: t('members.remove') }).click();
        await row.getByText(t('members.removeQuestion', { name: names.other })).waitFor();
        await row.getByRole('button', { name: t('members.removeConfirm') }).click();
        await page.getByText(t('members.removed', { name: names.other })).waitFor();
        assert.equal(await roleOf(other.user.username), undefined);
        await session.check('removed');
        // The browser logs the refusal asked for (404 unknown user); nothing else.
        assert.deepEqual(problems.filter((problem) => !/status of 404/.test(problem)), []);
      } finally {
        await context.close();
      }
    });
  }
});
