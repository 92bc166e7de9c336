/**
 * What the editor's browser tests share: the editor's content element, opening a page until
 * its editor is live and saved, and putting the caret at the end of the text (through the
 * DOM selection, which the editor follows).
 */
import type { Page } from 'playwright-core';
import type { BrowserSession } from './browserSession.ts';

export const editorContent = (page: Page) => page.locator('.page-editor-content');

/** Visits `url` (axe included) and waits until the editor is there and says everything is saved. */
export async function openEditor(session: BrowserSession, url: string): Promise<void> {
  await session.visit(url);
  await editorContent(session.page).waitFor();
  await session.page.getByText(session.t('editor.status.saved')).waitFor();
}

export async function caretAtEnd(page: Page): Promise<void> {
  await editorContent(page).evaluate((element) => {
    element.focus();
    const range = document.createRange();
    range.selectNodeContents(element.lastElementChild ?? element);
    range.collapse(false);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  });
  await page.waitForTimeout(50);
}
