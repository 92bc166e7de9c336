/**
 * Uploads in the editor, in Chromium against the real API and collab server: an image pasted
 * into the text shows a progress bar naming it, goes in as an image, and a second person's
 * editor draws it from its file; an SVG dropped into the text becomes a link to the file; a
 * `.exe` picked through the toolbar's button and a `.png` that is HTML are refused in words
 * naming the file; the attachments panel lists the files, and deleting one asks first. Two
 * files in one paste go in in their order. Readers get no way to upload; their panel shows its
 * empty state, then the files without Delete. Screens checked with axe (light and dark, focus
 * rings, width) and screenshots: desktop in English, phone in German.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { openSession, SCREEN_SHAPES, type BrowserSession, type ScreenShape } from './browserSession.ts';
import { caretAtEnd, editorContent, openEditor } from './editorPage.ts';
import { checkBothSchemes } from './screenChecks.ts';
import { browser, instance, useSiteUnderTest } from './siteUnderTest.ts';

useSiteUnderTest();

interface Person {
  client: TestClient;
  username: string;
  displayName: string;
}

interface ListedFile {
  id: string;
  name: string;
  url: string;
}

/** A file as the page receives it: its bytes travel as base64 into `page.evaluate`. */
interface FileBytes {
  name: string;
  type: string;
  base64: string;
}

async function person(locale: 'de' | 'en'): Promise<Person> {
  const { client } = await createVerifiedUser(instance, { locale });
  const me = (await client.get('/auth/session')).body.user as { username: string; displayName: string };
  return { client, username: me.username, displayName: me.displayName };
}

/** A real PNG of one colour: the signature, IHDR, one IDAT and IEND, each chunk with its CRC. */
function solidPng(width: number, height: number, [red, green, blue]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([red, green, blue], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

// Wider than a phone: the width check of each screen finds it if it sticks out.
const PHOTO: FileBytes = { name: 'pond-photo.png', type: 'image/png', base64: solidPng(1200, 500, [14, 116, 144]).toString('base64') };
const SKETCH: FileBytes = {
  name: 'sketch.svg',
  type: 'image/svg+xml',
  base64: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="teal"/></svg>').toString('base64'),
};
const SECOND_PHOTO: FileBytes = { name: 'second-photo.png', type: 'image/png', base64: solidPng(120, 60, [180, 83, 9]).toString('base64') };
const FAKE_PNG: FileBytes = { name: 'not-a-picture.png', type: 'image/png', base64: Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>').toString('base64') };

/** Pastes the files into the text as a clipboard carrying only them (a screenshot tool's paste). */
async function pasteFiles(page: Page, files: FileBytes[]): Promise<void> {
  await editorContent(page).evaluate((element, files) => {
    const data = new DataTransfer();
    for (const file of files) data.items.add(new File([Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0))], file.name, { type: file.type }));
    element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, files);
}

/** Drops the files at the end of the text's last paragraph. */
async function dropFiles(page: Page, files: FileBytes[]): Promise<void> {
  await editorContent(page).evaluate((element, files) => {
    const data = new DataTransfer();
    for (const file of files) data.items.add(new File([Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0))], file.name, { type: file.type }));
    const target = [...element.querySelectorAll('p')].at(-1)!.getBoundingClientRect();
    element.dispatchEvent(new DragEvent('drop', { dataTransfer: data, clientX: target.right - 2, clientY: target.top + target.height / 2, bubbles: true, cancelable: true }));
  }, files);
}

/** Resolves once the editor's `<img>` of the file is loaded and has pixels. */
async function imageDrawn(page: Page, url: string): Promise<void> {
  const image = editorContent(page).locator(`img[src="${url}"]`);
  await image.waitFor({ state: 'attached', timeout: 15_000 });
  await waitFor(() => image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0), 10_000, `the image ${url} to be drawn`);
}

async function openAs(who: Person, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const session = await openSession(browser, shape, prefix);
  await session.context.addCookies([{ name: 'dt_session', value: who.client.sessionCookie!, url: instance.baseUrl }]);
  return session;
}

/** The panels beside the body (desktop) or in their disclosure below it (phone), on the Attachments tab. */
async function openAttachments(session: BrowserSession, shape: ScreenShape) {
  if (shape.isMobile) await session.page.locator('.page-panels summary').click();
  await session.page.getByRole('tab', { name: session.t('panels.files') }).click();
  return session.page.locator('#page-panel-files');
}

async function filesOf(client: TestClient, pageId: string): Promise<ListedFile[]> {
  const listed = await client.get(`/pages/${pageId}/files`);
  assert.equal(listed.status, 200, listed.text);
  return (listed.body as { items: ListedFile[] }).items;
}

/** What the browser logs for the refusals the test provokes on purpose (415 for the .exe and the fake PNG). */
const unexpected = (problems: string[]) => problems.filter((problem) => !problem.includes('status of 415'));

describe('uploads in the editor', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`paste, drop and pick files; refusals in words; the attachments panel (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const [ada, bob] = [await person(shape.locale), await person(shape.locale)];
      const pond = (await ada.client.post('/ponds', { name: `Uploads ${shape.name}` })).body as { id: string; slug: string };
      assert.equal((await ada.client.post(`/ponds/${pond.id}/members`, { user: bob.username, role: 'editor' })).status, 201);
      const page = (await ada.client.post(`/ponds/${pond.id}/pages`, { title: 'Field notes', markdown: 'What we saw at the pond.' })).body as { id: string; slug: string };
      const url = `${instance.baseUrl}/${pond.slug}/${page.slug}`;
      const [first, second] = [await openAs(ada, shape, 'editor-uploads'), await openAs(bob, shape, 'editor-uploads')];
      const { t } = first;
      try {
        await openEditor(first, url);
        await openEditor(second, url);

        // The upload is held at the network until the progress bar has been seen.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        await first.page.route('**/api/v1/pages/*/files', async (route) => {
          if (route.request().method() === 'POST') await held;
          await route.continue();
        });
        await caretAtEnd(first.page);
        await pasteFiles(first.page, [PHOTO]);
        await first.page.getByRole('progressbar', { name: t('upload.progress', { name: PHOTO.name }) }).waitFor();
        await first.check('uploading');
        release();

        await waitFor(async () => (await filesOf(ada.client, page.id)).length === 1, 10_000, 'the upload to be listed');
        const [photo] = await filesOf(ada.client, page.id);
        assert.equal(photo!.name, PHOTO.name);
        assert.equal(photo!.url, `/api/v1/media/${photo!.id}`);
        await imageDrawn(first.page, photo!.url);
        // Announced (the text itself shows the picture), not shown over the text.
        await first.page.getByRole('status').filter({ hasText: t('upload.done', { name: PHOTO.name }) }).waitFor({ state: 'attached' });
        assert.equal(await first.page.getByRole('progressbar').count(), 0, 'no progress bar once it is up');
        // The other person's editor draws it from its file.
        await imageDrawn(second.page, photo!.url);
        assert.equal(await editorContent(second.page).locator(`img[src="${photo!.url}"]`).getAttribute('alt'), 'pond-photo');
        // The saved text references the file (its rendering shows it).
        await waitFor(async () => (await ada.client.get(`/read/${pond.slug}/${page.slug}`)).text.includes(photo!.url), 15_000, 'the stored text to show the image');

        // Its description (alt text): a click selects the image, the toolbar's "Describe image"
        // opens the field with the file's name in it; the other editor and the saved text get it.
        await editorContent(first.page).locator(`img[src="${photo!.url}"]`).click();
        await first.page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.imageDescription') }).click();
        const descriptionField = first.page.getByLabel(t('editor.imageDescriptionField'));
        assert.equal(await descriptionField.inputValue(), 'pond-photo');
        await descriptionField.fill('A teal pond\nat dusk');
        await first.check('image-description');
        await descriptionField.press('Enter');
        assert.equal(await first.page.getByRole('form', { name: t('editor.imageDescriptionForm') }).count(), 0, 'the form closes once applied');
        await waitFor(async () => (await editorContent(second.page).locator(`img[src="${photo!.url}"]`).getAttribute('alt')) === 'A teal pond at dusk', 10_000, 'the description, on one line, in the other editor');
        await waitFor(async () => (await ada.client.get(`/read/${pond.slug}/${page.slug}`)).text.includes('alt="A teal pond at dusk"'), 15_000, 'the saved text to carry the description');

        // An SVG dropped into the text becomes a link to the file, never an inline picture.
        await dropFiles(first.page, [SKETCH]);
        const sketch = await waitFor(async () => (await filesOf(ada.client, page.id)).find((file) => file.name === SKETCH.name), 10_000, 'the SVG to be listed');
        await editorContent(first.page).locator(`a[href="${sketch.url}"]`, { hasText: SKETCH.name }).waitFor();
        await editorContent(second.page).locator(`a[href="${sketch.url}"]`, { hasText: SKETCH.name }).waitFor();
        assert.equal(await editorContent(first.page).locator(`img[src="${sketch.url}"]`).count(), 0);

        // Refusals, in words and naming the file: a type not allowed, picked with the toolbar's button…
        const chooser = first.page.waitForEvent('filechooser');
        await first.page.getByRole('toolbar', { name: t('editor.toolbar') }).getByRole('button', { name: t('editor.insertFile') }).click();
        await (await chooser).setFiles({ name: 'setup.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ not really a program') });
        const typeRefusal = t('upload.refused', { name: 'setup.exe', reason: t('upload.typeRefused', { extension: 'exe' }) });
        await first.page.getByRole('alert').filter({ hasText: typeRefusal }).waitFor();
        // …and a .png whose bytes are HTML, pasted.
        await caretAtEnd(first.page);
        await pasteFiles(first.page, [FAKE_PNG]);
        const mismatch = t('upload.refused', { name: FAKE_PNG.name, reason: t('upload.contentMismatch', { extension: 'png' }) });
        await first.page.getByRole('alert').filter({ hasText: mismatch }).waitFor();
        assert.equal((await filesOf(ada.client, page.id)).length, 2, 'nothing refused was stored');
        await checkBothSchemes(first, 'refused');
        await first.page.getByRole('button', { name: t('upload.dismiss') }).click();
        await first.page.waitForFunction(() => document.activeElement?.classList.contains('page-editor-content') ?? false);
        assert.equal(await first.page.getByRole('alert').filter({ hasText: typeRefusal }).count(), 0);

        // The attachments panel lists both; deleting asks first, and Cancel keeps the file.
        const panel = await openAttachments(first, shape);
        const entries = panel.locator('li.attachment');
        await entries.filter({ hasText: PHOTO.name }).waitFor();
        await entries.filter({ hasText: SKETCH.name }).waitFor();
        assert.ok((await entries.filter({ hasText: PHOTO.name }).innerText()).includes(ada.displayName));
        assert.equal(await panel.getByRole('link', { name: `${t('files.download')} ${PHOTO.name}` }).getAttribute('href'), photo!.url);
        await checkBothSchemes(first, 'attachments');
        const deleteSketch = panel.getByRole('button', { name: `${t('files.delete')} ${SKETCH.name}` });
        await deleteSketch.click();
        const question = t('files.deleteQuestion', { name: SKETCH.name });
        await panel.getByText(question).waitFor();
        assert.equal(await first.page.evaluate(() => document.activeElement?.textContent?.trim()), t('files.deleteConfirm'), 'the focus on the confirmation');
        await first.check('delete-question');
        await panel.getByRole('button', { name: t('files.cancel') }).click();
        assert.equal((await filesOf(ada.client, page.id)).length, 2, 'Cancel deletes nothing');
        await deleteSketch.click();
        await panel.getByRole('button', { name: t('files.deleteConfirm') }).click();
        await panel.getByText(t('files.deleted', { name: SKETCH.name })).waitFor();
        assert.equal(await entries.filter({ hasText: SKETCH.name }).count(), 0);
        assert.deepEqual((await filesOf(ada.client, page.id)).map((file) => file.name), [PHOTO.name]);

        assert.deepEqual(unexpected(first.problems), []);
        assert.deepEqual(second.problems, []);
      } finally {
        await first.context.close();
        await second.context.close();
      }
    });
  }

  test('readers get no way to upload, and no Delete in the attachments panel', { timeout: 120_000 }, async () => {
    const shape = SCREEN_SHAPES[0]!;
    await resetRateLimits(instance);
    const [ada, cara] = [await person('en'), await person('en')];
    const pond = (await ada.client.post('/ponds', { name: 'Uploads for readers' })).body as { id: string; slug: string };
    assert.equal((await ada.client.post(`/ponds/${pond.id}/members`, { user: cara.username, role: 'reader' })).status, 201);
    const page = (await ada.client.post(`/ponds/${pond.id}/pages`, { title: 'Read only', markdown: 'Look, do not touch.' })).body as { id: string; slug: string };
    const writer = await openAs(ada, shape, 'editor-uploads-reader');
    const reader = await openAs(cara, shape, 'editor-uploads-reader');
    const { page: tab, t } = reader;
    try {
      const url = `${instance.baseUrl}/${pond.slug}/${page.slug}`;
      // Before any upload: the panel's empty state, in the reader's words.
      await reader.visit(url);
      await tab.getByText(t('editor.status.readOnly')).waitFor();
      const emptyPanel = await openAttachments(reader, shape);
      await emptyPanel.getByText(t('files.empty'), { exact: true }).waitFor();

      // Two files in one paste go up one after the other and into the text in their order.
      await openEditor(writer, url);
      await caretAtEnd(writer.page);
      await pasteFiles(writer.page, [PHOTO, SECOND_PHOTO]);
      const [photo, second] = await waitFor(async () => {
        const files = await filesOf(ada.client, page.id);
        return files.length === 2 && files;
      }, 10_000, 'the writer’s uploads');
      assert.deepEqual([photo!.name, second!.name], [PHOTO.name, SECOND_PHOTO.name]);
      await imageDrawn(writer.page, second!.url);
      const order = () => editorContent(writer.page).locator('img[src^="/api/v1/media/"]').evaluateAll((images) => images.map((image) => image.getAttribute('src')));
      assert.deepEqual(await order(), [photo!.url, second!.url]);
      // The reader's editor draws them as they come in.
      await imageDrawn(tab, photo!.url);
      await imageDrawn(tab, second!.url);

      const uploads: string[] = [];
      tab.on('request', (request) => {
        if (request.method() === 'POST' && request.url().includes('/files')) uploads.push(request.url());
      });
      await reader.visit(url);
      await imageDrawn(tab, photo!.url);
      await tab.getByText(t('editor.status.readOnly')).waitFor();
      assert.equal(await tab.getByRole('button', { name: t('editor.insertFile') }).count(), 0, 'no upload button');
      assert.equal(await tab.locator('input[type="file"]').count(), 0, 'no file field');
      await pasteFiles(tab, [PHOTO]);
      await tab.waitForTimeout(500);
      assert.deepEqual(uploads, [], 'a paste uploads nothing');
      assert.equal(await editorContent(tab).locator('img[src^="/api/v1/media/"]').count(), 2);

      const panel = await openAttachments(reader, shape);
      await panel.locator('li.attachment', { hasText: PHOTO.name }).waitFor();
      assert.equal(await panel.getByRole('button', { name: new RegExp(t('files.delete')) }).count(), 0);
      await reader.check('reader-attachments');
      assert.deepEqual(writer.problems, []);
      assert.deepEqual(reader.problems, []);
    } finally {
      await writer.context.close();
      await reader.context.close();
    }
  });
});
