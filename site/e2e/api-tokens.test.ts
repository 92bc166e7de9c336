/**
 * Personal access tokens on `/settings` in Chromium: the empty list, refusals said at their
 * field, a read token for all ponds and a write token limited to one pond with a last day; the
 * secret shown once (copied to the clipboard, gone after a reload); the list with access,
 * ponds, expiry, last use, and an expired token shown as such; revoke after a confirmation
 * that Escape cancels (focus back on Revoke), a failed revoke said in its row, and the empty
 * list again. The secrets are checked against the token store itself (the public API may be
 * switched off). On a desktop in English and a phone in German, light and dark: axe finds
 * nothing, every Tab stop shows its focus ring, nothing sticks out sideways. Screenshots as
 * `api-tokens-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { checkPresentedAccessToken } from '../../api/auth/accessTokens.ts';
import { seedSharedPond } from '../../api/testing/accessFixtures.ts';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { openSession, SCREEN_SHAPES } from './browserSession.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';
import { checkBothSchemes } from './screenChecks.ts';

useSiteUnderTest();

const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** The facts a token's row shows, by their label. */
async function factsOf(row: Locator): Promise<Record<string, string>> {
  const pairs = await row.locator('dl > div').evaluateAll((entries) => entries.map((entry) => [entry.querySelector('dt')?.textContent?.trim() ?? '', entry.querySelector('dd')?.textContent?.trim() ?? '']));
  return Object.fromEntries(pairs);
}

/** A day `days` from now as a date input takes it (the browser's zone is the test's). */
function dayFromNow(days: number): string {
  const day = new Date(Date.now() + days * 86_400_000);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

describe('personal access tokens in the settings', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`create, copy, reload, list, revoke (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const { sequelize } = instance.services;
      const { client, user } = await createVerifiedUser(instance);
      const pond = await seedSharedPond(user.id, shape.locale === 'de' ? 'Gemeinsamer Teich' : 'Shared notes');
      const session = await openSession(browser, shape, 'api-tokens');
      const { page, t, problems, context } = session;
      await context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: instance.baseUrl });
      const section = page.getByRole('region', { name: t('apiTokens.heading') });
      const rows = section.locator('.token');
      const rowOf = (name: string) => rows.filter({ has: page.getByText(name, { exact: true }) });
      const nameField = section.getByLabel(t('apiTokens.name'));
      const create = section.getByRole('button', { name: t('apiTokens.create') });
      const secretField = section.getByLabel(t('apiTokens.secretLabel'), { exact: true });
      const readName = shape.locale === 'de' ? 'Sicherung' : 'Backup script';
      const writeName = shape.locale === 'de' ? 'Assistent im Teich' : 'Pond assistant';
      try {
        // Empty: no tokens, the form ready.
        await session.visit(`${instance.baseUrl}/settings`);
        await section.getByText(t('apiTokens.empty')).waitFor();
        await section.scrollIntoViewIfNeeded();
        await checkBothSchemes(session, 'empty');

        // Refusals at their field: no name (the API's words), a day already past (the page's).
        await create.click();
        await section.locator('#api-token-name-error').waitFor();
        assert.ok(await isFocused(nameField), 'focus on the name the API refused');
        await nameField.fill(readName);
        await section.getByLabel(t('apiTokens.expiry')).fill(dayFromNow(-2));
        await create.click();
        await section.getByText(t('apiTokens.expiryPast')).waitFor();
        assert.equal(await section.getByLabel(t('apiTokens.expiry')).getAttribute('aria-invalid'), 'true');
        assert.equal(await rows.count(), 0, 'nothing was made');
        await checkBothSchemes(session, 'refused');

        // A read token for all ponds: the secret, once, with the warning; focus on it.
        await section.getByLabel(t('apiTokens.expiry')).fill('');
        await create.click();
        const secretHeading = section.getByRole('heading', { name: t('apiTokens.secretHeading', { name: readName }) });
        await secretHeading.waitFor();
        assert.ok(await isFocused(secretHeading), 'focus moves to the new secret');
        await section.getByText(t('apiTokens.shownOnce')).waitFor();
        const readSecret = await secretField.inputValue();
        assert.match(readSecret, /^dt_pat_[A-Za-z0-9_-]{20,}$/);
        assert.equal(await secretField.getAttribute('readonly'), '');
        assert.equal(await nameField.inputValue(), '', 'the form starts over');
        const { [t('apiTokens.createdAt')]: createdAt, ...readFacts } = await factsOf(rowOf(readName));
        assert.deepEqual(readFacts, {
          [t('apiTokens.scope')]: t('apiTokens.scope.read'),
          [t('apiTokens.ponds')]: t('apiTokens.allPonds'),
          [t('apiTokens.expiresAt')]: t('apiTokens.neverExpires'),
          [t('apiTokens.lastUsedAt')]: t('apiTokens.neverUsed'),
        });
        assert.ok(createdAt, 'when it was created');
        const checked = await checkPresentedAccessToken(sequelize, readSecret);
        assert.equal(checked.status, 'valid');
        assert.equal(checked.status === 'valid' && checked.token.scope, 'read');

        // Copy: the clipboard holds the secret; the button and a status say so.
        await section.getByRole('button', { name: t('apiTokens.copy'), exact: true }).click();
        await section.getByRole('button', { name: t('apiTokens.copied'), exact: true }).waitFor();
        await section.getByRole('status').filter({ hasText: t('apiTokens.copiedAnnouncement') }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), readSecret);
        await checkBothSchemes(session, 'secret');

        // A write token limited to the shared pond, with a last day: newest first, its own secret.
        await nameField.fill(writeName);
        await section.getByLabel(t('apiTokens.scope.write')).check();
        await section.getByLabel(t('apiTokens.expiry')).fill(dayFromNow(30));
        await section.getByLabel(t('apiTokens.pond'), { exact: true }).selectOption({ label: pond.name });
        await create.click();
        await section.getByRole('heading', { name: t('apiTokens.secretHeading', { name: writeName }) }).waitFor();
        const writeSecret = await secretField.inputValue();
        assert.notEqual(writeSecret, readSecret);
        assert.deepEqual(await rows.locator('.token-name').allTextContents(), [writeName, readName]);
        const writeFacts = await factsOf(rowOf(writeName));
        assert.equal(writeFacts[t('apiTokens.scope')], t('apiTokens.scope.write'));
        assert.equal(writeFacts[t('apiTokens.ponds')], pond.name);
        assert.notEqual(writeFacts[t('apiTokens.expiresAt')], t('apiTokens.neverExpires'));
        const written = await checkPresentedAccessToken(sequelize, writeSecret);
        assert.ok(written.status === 'valid' && written.token.scope === 'write' && written.token.pondId === pond.id);
        assert.equal(written.status === 'valid' && written.token.expiresAt?.getDate(), new Date(Date.now() + 30 * 86_400_000).getDate(), 'through the chosen day');

        // Shown once: after a reload the secret is nowhere; the list has both, one of them used
        // since (the store marks it) and one past its expiry (set in the store).
        await sequelize.query(`update api_tokens set expires_at = now() - interval '1 day' where id = :id`, { replacements: { id: written.status === 'valid' ? written.token.id : '' } });
        await session.visit(`${instance.baseUrl}/settings`);
        assert.equal(await secretField.count(), 0);
        assert.equal(await page.getByText('dt_pat_').count(), 0, 'the secret is nowhere on the page');
        assert.ok(!(await page.content()).includes(readSecret), 'nor in the markup');
        assert.equal(await rows.count(), 2);
        assert.notEqual((await factsOf(rowOf(readName)))[t('apiTokens.lastUsedAt')], t('apiTokens.neverUsed'), 'used by the check above');
        await rowOf(writeName).getByText(t('apiTokens.statusExpired'), { exact: true }).first().waitFor();
        assert.ok(t('apiTokens.expiredAt') in (await factsOf(rowOf(writeName))), 'the expiry is named as past');
        await rowOf(writeName).scrollIntoViewIfNeeded();
        await checkBothSchemes(session, 'list');

        // Revoke: a confirmation first; Escape cancels and gives focus back to Revoke.
        const revokeWrite = rowOf(writeName).getByRole('button', { name: `${t('apiTokens.revoke')} – ${writeName}` });
        await revokeWrite.click();
        const confirm = rowOf(writeName).getByRole('button', { name: t('apiTokens.confirmRevokeButton') });
        await confirm.waitFor();
        assert.ok(await isFocused(confirm), 'focus on the confirmation');
        await rowOf(writeName).getByText(t('apiTokens.confirmRevoke', { name: writeName })).waitFor();
        await checkBothSchemes(session, 'confirm');
        await confirm.focus();
        await page.keyboard.press('Escape');
        await confirm.waitFor({ state: 'detached' });
        assert.ok(await isFocused(revokeWrite), 'focus back on Revoke');

        // A revoke that fails is said in that token's row, and the token stays.
        await page.route('**/api/v1/users/me/api-tokens/*', (route) => route.abort('failed'));
        await revokeWrite.click();
        await confirm.click();
        await rowOf(writeName).getByRole('alert').filter({ hasText: t('error.network') }).waitFor();
        assert.equal(await rows.count(), 2);
        await checkBothSchemes(session, 'revoke-failed');
        await page.unroute('**/api/v1/users/me/api-tokens/*');

        // Confirmed: gone from the list, refused by the store; focus on the next token's Revoke.
        await confirm.click();
        await section.getByText(t('apiTokens.revoked', { name: writeName })).waitFor();
        assert.equal(await rows.count(), 1);
        assert.equal((await checkPresentedAccessToken(sequelize, writeSecret)).status, 'revoked');
        const revokeRead = rowOf(readName).getByRole('button', { name: `${t('apiTokens.revoke')} – ${readName}` });
        assert.ok(await isFocused(revokeRead), 'focus on the remaining token');

        // The last one, from the keyboard: then the empty list, focus on its heading.
        await page.keyboard.press('Enter');
        await rowOf(readName).getByRole('button', { name: t('apiTokens.confirmRevokeButton') }).waitFor();
        await page.keyboard.press('Enter');
        await section.getByText(t('apiTokens.empty')).waitFor();
        assert.ok(await isFocused(section.getByRole('heading', { name: t('apiTokens.listHeading') })), 'focus on the list heading');
        assert.equal((await checkPresentedAccessToken(sequelize, readSecret)).status, 'revoked');
        await checkBothSchemes(session, 'revoked');

        // The aborted revoke and the API's 400 for the nameless token were meant to happen.
        assert.deepEqual(problems.filter((problem) => !problem.includes('net::ERR_FAILED') && !/status of 400/.test(problem)), []);
      } finally {
        await context.close();
      }
    });
  }
});
