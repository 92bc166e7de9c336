/**
 * The checks every screen of the e2e suites passes where it is shown: nothing sticks out
 * sideways (a phone would scroll), and in light and in dark: axe finds nothing serious, every
 * Tab stop shows its focus ring, and a screenshot of each is saved (`session.check`).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { BrowserSession } from './browserSession.ts';
import { expectVisibleFocus } from './focusIndicator.ts';

/** The document is no wider than the window; a failure names the elements that reach past it. */
export async function expectNoSidewaysScroll(page: Page, screen: string): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
  if (scrollWidth <= clientWidth) return;
  const wide = await page.evaluate((limit) => [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > limit).map((element) => `${element.tagName}.${element.className}`).slice(0, 8), clientWidth);
  assert.fail(`${screen}: the page is ${scrollWidth}px wide in a ${clientWidth}px window: ${wide.join(', ')}`);
}

/** The screen as it is now, light and dark: width, axe, focus rings, a screenshot of each (`<screen>` and `<screen>-dark`). */
export async function checkBothSchemes(session: BrowserSession, screen: string): Promise<void> {
  await expectNoSidewaysScroll(session.page, screen);
  for (const colorScheme of ['light', 'dark'] as const) {
    await session.page.emulateMedia({ colorScheme });
    await session.check(colorScheme === 'light' ? screen : `${screen}-dark`);
    await expectVisibleFocus(session.page, `${screen} (${colorScheme})`);
  }
  await session.page.emulateMedia({ colorScheme: 'light' });
}
