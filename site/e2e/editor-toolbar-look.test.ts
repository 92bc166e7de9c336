/**
 * How the editor's toolbar looks and reads, in Chromium against a real collab server: every
 * button shows an icon (no text glyphs), has an accessible name and a tooltip with that name
 * (and its shortcut) on keyboard focus and on hover; the table controls are named and do what
 * their names say. At 1280 px the toolbar is one row. On a 390×844 phone the toolbar is one row that scrolls sideways and sticks
 * at the top while the page scrolls, and the caret is kept clear of it. Screens checked with
 * axe; screenshots with a tooltip showing in both shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { caretAtEnd, editorContent, openEditor } from './editorPage.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

async function pageWith(locale: 'de' | 'en', markdown: string) {
  const owner = (await createVerifiedUser(instance, { locale })).client;
  const pond = (await owner.post('/ponds', { name: 'Toolbar pond' })).body as { id: string; slug: string };
  const page = (await owner.post(`/ponds/${pond.id}/pages`, { title: 'Toolbar', markdown })).body as { id: string; slug: string };
  return { owner, url: `${instance.baseUrl}/${pond.slug}/${page.slug}` };
}

async function openAs(client: TestClient, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie!, url: instance.baseUrl }]);
  return session;
}

const toolbarOf = (session: BrowserSession) => session.page.getByRole('toolbar', { name: session.t('editor.toolbar') });

/** The tooltip showing now (bits-ui portals it into the page's main landmark), or null. */
const shownTooltip = (page: Page) => page.evaluate(() => document.querySelector('[role="tooltip"]')?.textContent?.trim() ?? null);

/** "Bold (Ctrl+B)" in English, "Fett (Strg+B)" in German: Chromium here runs on Linux. */
const CTRL = { en: 'Ctrl', de: 'Strg' } as const;

describe('the editor toolbar’s icons, names and tooltips', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`every button: an icon, a name, a tooltip on focus and hover; table controls named (${shape.name})`, { timeout: 120_000 }, async () => {
      await resetRateLimits(instance);
      const { owner, url } = await pageWith(shape.locale, 'Seed paragraph.');
      const session = await openAs(owner, shape, 'editor-toolbar-look');
      const { page, t } = session;
      try {
        await openEditor(session, url);
        const toolbar = toolbarOf(session);
        const tools = toolbar.locator('button.tool');
        const described = await tools.evaluateAll((buttons) => buttons.map((button) => ({
          label: button.getAttribute('aria-label'),
          dataLabel: (button as HTMLElement).dataset['label'],
          icons: button.querySelectorAll('svg[aria-hidden="true"]').length,
          text: (button as HTMLElement).innerText.trim(),
        })));
        assert.ok(described.length > 10, 'a full toolbar');
        for (const button of described) {
          assert.ok(button.label && button.label.trim() !== '', `a name for every button: ${JSON.stringify(button)}`);
          assert.equal(button.dataLabel, button.label);
          assert.equal(button.icons, 1, `one icon in ${button.label}`);
          assert.equal(button.text, '', `no text glyph in ${button.label}`);
        }
        // The names are what the buttons are found by.
        for (const key of ['editor.bold', 'editor.italic', 'editor.link', 'editor.codeBlock', 'editor.insertTable', 'editor.insertFile', 'editor.comment', 'editor.undo', 'editor.redo'] as const) {
          assert.equal(await toolbar.getByRole('button', { name: t(key), exact: true }).count(), 1, t(key));
        }
        if (!shape.isMobile) {
          // At 1280 px, beside the sidebar and the panels, the whole toolbar is one row.
          const tops = new Set(await tools.evaluateAll((buttons) => buttons.map((button) => Math.round(button.getBoundingClientRect().top))));
          assert.equal(tops.size, 1, `one row of ${described.length} buttons on ${shape.name} (tops ${[...tops].join(', ')})`);
        }
        // Toggles keep aria-pressed.
        assert.equal(await toolbar.getByRole('button', { name: t('editor.bold'), exact: true }).getAttribute('aria-pressed'), 'false');

        // Keyboard focus shows the tooltip, with the shortcut; the arrows move it along.
        assert.equal(await shownTooltip(page), null, 'no tooltip before anything is focused');
        await caretAtEnd(page);
        await page.keyboard.press('Shift+Tab');
        await waitFor(async () => (await shownTooltip(page)) === `${t('editor.bold')} (${CTRL[shape.locale]}+B)`, 5_000, 'the bold tooltip on focus');
        const bold = toolbar.getByRole('button', { name: t('editor.bold'), exact: true });
        const tooltipId = await page.locator('[role="tooltip"]').getAttribute('id');
        assert.equal(await bold.getAttribute('aria-describedby'), tooltipId, 'the focused button is described by its tooltip');
        assert.equal(await bold.getAttribute('aria-keyshortcuts'), 'Control+B Meta+B');
        assert.equal(await page.locator('main [role="tooltip"]').count(), 1, 'inside the main landmark');
        await page.keyboard.press('ArrowRight');
        await waitFor(async () => (await shownTooltip(page)) === `${t('editor.italic')} (${CTRL[shape.locale]}+I)`, 5_000, 'the italic tooltip');
        // The tooltip stands clear of the button, inside the window.
        const tip = (await page.locator('[role="tooltip"]').boundingBox())!;
        const italic = (await toolbar.getByRole('button', { name: t('editor.italic'), exact: true }).boundingBox())!;
        assert.ok(tip.y >= italic.y + italic.height, 'below the button');
        assert.ok(tip.x >= 0 && tip.x + tip.width <= shape.viewport.width, 'inside the window');
        await session.check('tooltip-focus');
        // Escape goes back to the text and the tooltip goes.
        await page.keyboard.press('Escape');
        await page.waitForFunction(() => document.activeElement?.classList.contains('page-editor-content') ?? false);
        await waitFor(async () => (await shownTooltip(page)) === null, 5_000, 'the tooltip to go');

        // Hover shows it too (a button without a shortcut says its name only).
        if (!shape.isMobile) {
          await toolbar.getByRole('button', { name: t('editor.heading', { level: 2 }), exact: true }).hover();
          await waitFor(async () => (await shownTooltip(page)) === `${t('editor.heading', { level: 2 })} (${CTRL[shape.locale]}+Alt+2)`, 5_000, 'the heading tooltip on hover');
          await toolbar.getByRole('button', { name: t('editor.horizontalRule'), exact: true }).hover();
          await waitFor(async () => (await shownTooltip(page)) === t('editor.horizontalRule'), 5_000, 'the divider tooltip on hover');
          await session.screenshot('tooltip-hover');
          await page.mouse.move(5, shape.viewport.height - 5);
          await waitFor(async () => (await shownTooltip(page)) === null, 5_000, 'the tooltip to go with the pointer');
        }

        // The table controls, named, appear inside a table and do what they say.
        await toolbar.getByRole('button', { name: t('editor.insertTable'), exact: true }).click();
        const table = editorContent(page).locator('table');
        await table.waitFor();
        const tableGroup = toolbar.getByRole('group', { name: t('editor.group.table') });
        await tableGroup.getByRole('button', { name: t('editor.deleteTable') }).waitFor();
        assert.deepEqual(
          await tableGroup.locator('button.tool').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label'))),
          (['editor.insertTable', 'editor.addRowBefore', 'editor.addRow', 'editor.removeRow', 'editor.addColumnBefore', 'editor.addColumn', 'editor.removeColumn', 'editor.deleteTable'] as const).map((key) => t(key)),
        );
        if (shape.locale === 'en') {
          assert.equal(t('editor.addRow'), 'Add row below');
          assert.equal(t('editor.removeColumn'), 'Delete column');
        } else {
          assert.equal(t('editor.addRow'), 'Zeile darunter einfügen');
          assert.equal(t('editor.removeColumn'), 'Spalte löschen');
        }
        assert.doesNotMatch(await toolbar.innerText(), /[≡⦀▦✕]/, 'no glyph text left');
        const rows = () => table.locator('tr').count();
        const columns = () => table.locator('tr').first().locator('th, td').count();
        assert.deepEqual([await rows(), await columns()], [3, 3]);
        await tableGroup.getByRole('button', { name: t('editor.addRow'), exact: true }).click();
        await waitFor(async () => (await rows()) === 4, 5_000, 'a row added below');
        await tableGroup.getByRole('button', { name: t('editor.addRowBefore'), exact: true }).click();
        await waitFor(async () => (await rows()) === 5, 5_000, 'a row added above');
        await tableGroup.getByRole('button', { name: t('editor.removeRow'), exact: true }).click();
        await waitFor(async () => (await rows()) === 4, 5_000, 'a row deleted');
        await tableGroup.getByRole('button', { name: t('editor.addColumnBefore'), exact: true }).click();
        await waitFor(async () => (await columns()) === 4, 5_000, 'a column added to the left');
        await tableGroup.getByRole('button', { name: t('editor.removeColumn'), exact: true }).click();
        await tableGroup.getByRole('button', { name: t('editor.removeColumn'), exact: true }).click();
        await waitFor(async () => (await columns()) === 2, 5_000, 'two columns deleted');
        await tableGroup.getByRole('button', { name: t('editor.addColumn'), exact: true }).click();
        await waitFor(async () => (await columns()) === 3, 5_000, 'a column added to the right');
        await session.check('table-tools');
        await tableGroup.getByRole('button', { name: t('editor.deleteTable'), exact: true }).click();
        await table.waitFor({ state: 'detached' });
        assert.equal(await tableGroup.locator('button.tool').count(), 1, 'outside a table: Insert table only');
        assert.deepEqual(session.problems, []);
      } finally {
        await session.context.close();
      }
    });
  }

  test('on a phone the toolbar is one row that scrolls sideways and sticks at the top, clear of the caret (phone-de)', { timeout: 120_000 }, async () => {
    const shape = SCREEN_SHAPES[1]!;
    assert.deepEqual(shape.viewport, { width: 390, height: 844 });
    await resetRateLimits(instance);
    const paragraphs = Array.from({ length: 40 }, (_, index) => `Absatz ${index + 1}: genug Text, damit die Seite weit nach unten reicht.`).join('\n\n');
    const { owner, url } = await pageWith('de', paragraphs);
    const session = await openAs(owner, shape, 'editor-toolbar-phone');
    const { page, t } = session;
    try {
      await openEditor(session, url);
      const toolbar = toolbarOf(session);
      const tools = toolbar.locator('button.tool');
      // One row: every button on the same line, the toolbar one button high (plus its padding).
      const boxes = await tools.evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().toJSON() as DOMRect));
      const tops = new Set(boxes.map((box) => Math.round(box.top)));
      assert.equal(tops.size, 1, `all buttons in one row (tops ${[...tops].join(', ')})`);
      const buttonHeight = boxes[0]!.height;
      const bar = (await toolbar.boundingBox())!;
      assert.ok(bar.height < buttonHeight * 1.5, `the toolbar is one row high (${bar.height} px for ${buttonHeight} px buttons)`);
      assert.ok(bar.width <= shape.viewport.width, 'no wider than the screen');
      // It scrolls sideways: more buttons than fit, and End brings the last one into view.
      const scroll = () => toolbar.evaluate((element) => ({ left: element.scrollLeft, width: element.scrollWidth, shown: element.clientWidth }));
      const before = await scroll();
      assert.ok(before.width > before.shown, 'the row is wider than the screen');
      assert.equal(before.left, 0);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page itself does not scroll sideways');
      await caretAtEnd(page);
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset['label']), t('editor.redo'));
      await waitFor(async () => (await scroll()).left > 0, 5_000, 'the row to scroll to the last button');
      const last = (await page.locator(':focus').boundingBox())!;
      assert.ok(last.x >= 0 && last.x + last.width <= shape.viewport.width, 'the focused button is on screen');
      // The focus ring shows, not cut off by the scrolling row.
      const ring = await page.locator(':focus').evaluate((element) => {
        const style = getComputedStyle(element);
        const row = element.closest('.editor-toolbar')!.getBoundingClientRect();
        const box = element.getBoundingClientRect();
        const reach = Number.parseFloat(style.outlineWidth) + Number.parseFloat(style.outlineOffset);
        return { style: style.outlineStyle, inside: box.top - reach >= row.top - 0.5 && box.bottom + reach <= row.bottom + 0.5 && box.right + reach <= row.right + 0.5 };
      });
      assert.notEqual(ring.style, 'none');
      assert.ok(ring.inside, 'the focus ring fits inside the row');
      await page.keyboard.press('Home');
      await waitFor(async () => (await scroll()).left === 0, 5_000, 'back at the start');
      await waitFor(async () => (await shownTooltip(page)) === `${t('editor.bold')} (Strg+B)`, 5_000, 'the bold tooltip on focus');
      await session.check('toolbar-tooltip');

      // Sticky: the page scrolls, the toolbar stays at the top.
      await page.keyboard.press('Escape');
      await page.evaluate(() => window.scrollTo(0, 2000));
      await waitFor(async () => (await page.evaluate(() => window.scrollY)) > 1000, 5_000, 'the page to scroll');
      const stuck = (await toolbar.boundingBox())!;
      assert.ok(Math.abs(stuck.y) <= 1, `the toolbar at the top after scrolling (y ${stuck.y})`);
      assert.equal(await tools.first().isVisible(), true);

      // Typing in a line the scroll left under the toolbar brings it out from under it.
      const line = editorContent(page).locator('p', { hasText: 'Absatz 20:' });
      await line.evaluate((paragraph) => {
        const range = document.createRange();
        range.selectNodeContents(paragraph);
        range.collapse(false);
        const selection = window.getSelection()!;
        selection.removeAllRanges();
        selection.addRange(range);
        (paragraph.closest('.page-editor-content') as HTMLElement).focus({ preventScroll: true });
        // The line just under the top edge: where the toolbar stands.
        window.scrollBy(0, paragraph.getBoundingClientRect().top - 10);
      });
      await page.waitForTimeout(100);
      const under = (await line.boundingBox())!;
      const toolbarBottom = () => toolbar.evaluate((element) => element.getBoundingClientRect().bottom);
      assert.ok(under.y < (await toolbarBottom()), 'the line starts under the toolbar before typing');
      await page.keyboard.type(' Neu.');
      await line.getByText('Neu.', { exact: false }).waitFor();
      const caretTop = await page.evaluate(() => window.getSelection()!.getRangeAt(0).getBoundingClientRect().top);
      assert.ok(caretTop >= (await toolbarBottom()), `the caret below the toolbar (caret ${caretTop}, toolbar ends ${await toolbarBottom()})`);
      await session.screenshot('sticky-typing');
      assert.deepEqual(session.problems, []);
    } finally {
      await session.context.close();
    }
  });
});

describe('the [[ suggestion list’s place', () => {
  test('below the caret where there is room, above it near the window’s bottom, always inside the window (desktop-en)', { timeout: 120_000 }, async () => {
    const shape = SCREEN_SHAPES[0]!;
    await resetRateLimits(instance);
    const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1}: enough text for the page to reach far down.`).join('\n\n');
    const { owner, url } = await pageWith('en', paragraphs);
    const session = await openAs(owner, shape, 'editor-suggestion-place');
    const { page } = session;
    try {
      await openEditor(session, url);
      const listbox = page.getByRole('listbox', { name: session.t('editor.suggest.pages') });
      /** The caret's line put `fromTop` px below the window's top, then `[[` typed there. */
      const suggestAt = async (paragraph: string, fromTop: number) => {
        await editorContent(page).locator('p', { hasText: paragraph }).evaluate((element, offset) => {
          const range = document.createRange();
          range.selectNodeContents(element);
          range.collapse(false);
          const selection = window.getSelection()!;
          selection.removeAllRanges();
          selection.addRange(range);
          (element.closest('.page-editor-content') as HTMLElement).focus({ preventScroll: true });
          window.scrollBy(0, element.getBoundingClientRect().top - offset);
        }, fromTop);
        await page.waitForTimeout(100);
        await page.keyboard.type(' [[Para');
        await listbox.getByRole('option', { name: session.t('editor.suggest.createMissing', { name: 'Para' }) }).waitFor();
        const caret = await page.evaluate(() => window.getSelection()!.getRangeAt(0).getBoundingClientRect().toJSON() as DOMRect);
        const list = (await listbox.boundingBox())!;
        return { caret, list };
      };
      const low = await suggestAt('Paragraph 30:', shape.viewport.height - 60);
      assert.ok(low.list.y + low.list.height <= low.caret.top + 0.5, `above the caret near the bottom (list ends ${low.list.y + low.list.height}, caret at ${low.caret.top})`);
      assert.ok(low.list.y >= 0, 'inside the window');
      await session.screenshot('suggestions-above');
      await page.keyboard.press('Escape');
      const high = await suggestAt('Paragraph 10:', 200);
      assert.ok(high.list.y >= high.caret.bottom - 0.5, `below the caret with room below (list starts ${high.list.y}, caret ends ${high.caret.bottom})`);
      assert.ok(high.list.y + high.list.height <= shape.viewport.height, 'inside the window');
      assert.deepEqual(session.problems, []);
    } finally {
      await session.context.close();
    }
  });
});
