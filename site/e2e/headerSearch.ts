/**
 * The header's search box in the browser tests: on a phone it waits behind its search button
 * (editor/src/search/SearchSuggestions.svelte), so a test that types into it opens it first.
 */
import type { Page } from 'playwright-core';
import type { Translate } from '../../editor/src/i18n/translator.ts';
import { waitForIslands } from './browserSession.ts';

/** Opens the box behind its button where there is one (a phone) and it is closed; elsewhere the box is shown already. */
export async function revealSearchBox(page: Page, t: Translate): Promise<void> {
  // Before the island wakes the button is a link to the results page.
  await waitForIslands(page);
  const opener = page.getByRole('button', { name: t('search.open') });
  if ((await opener.isVisible()) && (await opener.getAttribute('aria-expanded')) !== 'true') await opener.click();
}
