/**
 * A password never lands in a URL. Before a Svelte island has hydrated, no handler stops the
 * browser's own submission of the server-rendered <form> (a GET by default, which puts every
 * named field, the password too, into the address bar, the history and the server's logs).
 * Every island form's submit button (editor/src/forms/SubmitButton.svelte) therefore comes
 * disabled from the server. Checked in Chromium on every form with a password (setup
 * wizard, login, signup, reset, the password change in the settings) and on the others, once
 * with JavaScript off and once with the islands' code blocked: pressing Enter in a field and
 * clicking the button send nothing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { completeSetup } from '../../api/testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, waitForIslands } from './browserSession.ts';

const SECRET = 'Secret-Password-4711';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The two ways a page can stay without its islands: no JavaScript at all, or their code not arriving. */
const WITHOUT_ISLANDS = [
  { name: 'JavaScript disabled', javaScriptEnabled: false, blockIslands: false },
  { name: 'island code blocked', javaScriptEnabled: true, blockIslands: true },
] as const satisfies readonly Variant[];

interface Variant {
  readonly name: string;
  readonly javaScriptEnabled: boolean;
  readonly blockIslands: boolean;
}

let instance: TestInstance;
let browser: Browser;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

/** The islands' scripts (Astro retries a failed one with `?astro-retry=…`). */
function isIslandCode(url: URL): boolean {
  return url.pathname.startsWith('/_astro/') && url.pathname.endsWith('.js');
}

async function openWithoutIslands(variant: Variant, cookie?: string): Promise<{ context: BrowserContext; page: Page; requests: Request[] }> {
  const context = await browser.newContext({ locale: 'en-US', javaScriptEnabled: variant.javaScriptEnabled });
  context.setDefaultTimeout(10_000);
  if (cookie) {
    const [name = '', value = ''] = cookie.split('=');
    await context.addCookies([{ name, value, url: instance.baseUrl }]);
  }
  if (variant.blockIslands) await context.route(isIslandCode, (route) => route.abort());
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  return { context, page, requests };
}

const SUBMISSION_TYPES = new Set(['document', 'fetch', 'xhr', 'ping', 'eventsource', 'websocket']);

/**
 * Fills every field of each form on the page (password fields with SECRET), then presses
 * Enter in each field and clicks the form's submit button; returns the requests sent meanwhile.
 */
async function tryToSubmit(page: Page, requests: Request[]): Promise<Request[]> {
  const forms = await page.locator('main form').all();
  assert.ok(forms.length > 0, 'the page shows a form');
  const before = requests.length;
  const start = page.url();
  for (const form of forms) {
    const fields = form.locator('input:not([type=checkbox]):not([type=radio]):not([type=hidden])');
    for (const field of await fields.all()) {
      const type = await field.getAttribute('type');
      await field.fill(type === 'password' ? SECRET : type === 'email' ? 'ada@example.org' : type === 'url' ? 'http://127.0.0.1/' : 'ada');
    }
    const submit = form.locator('button[type=submit]');
    assert.equal(await submit.count(), 1, 'one submit button per form');
    // A submission navigates away at once; each attempt gets the time a slow one would take.
    for (const field of await fields.all()) {
      if (page.url() !== start) break;
      await field.press('Enter');
      await page.waitForTimeout(300);
    }
    // force: a click that Playwright would otherwise hold back until the button is enabled.
    if (page.url() === start) await submit.click({ force: true });
    await page.waitForTimeout(500);
  }
  // Attempts to fetch the blocked island code are the page's own doing, not a submission;
  // so are the browser's own loads of images and the favicon, which may land at any moment.
  // A submission is a navigation, a script's request, or anything but a GET.
  return requests
    .slice(before)
    .filter((request) => !isIslandCode(new URL(request.url())))
    .filter((request) => request.method() !== 'GET' || SUBMISSION_TYPES.has(request.resourceType()));
}

function assertNothingSent(page: Page, sent: Request[], screen: string): void {
  assert.ok(!page.url().includes(SECRET), `${screen}: the password is in the address ${page.url()}`);
  assert.equal(new URL(page.url()).search, new URL(page.url()).pathname === '/reset-password' ? '?token=abc' : '', `${screen}: the address changed to ${page.url()}`);
  assert.deepEqual(
    sent.map((request) => `${request.method()} ${request.url()}`),
    [],
    `${screen}: a request was sent`,
  );
}

async function assertButtonWaits(page: Page): Promise<void> {
  for (const submit of await page.locator('main form button[type=submit]').all()) {
    assert.ok(await submit.isDisabled(), 'the submit button waits for the island');
    // Should a submission ever get through, it would carry the fields in a body, not the URL.
    assert.equal(await submit.getAttribute('formmethod'), 'post');
  }
}

describe('island forms before hydration', () => {
  for (const variant of WITHOUT_ISLANDS) {
    test(`setup wizard (${variant.name}): the admin's password stays out of the URL`, { timeout: 30_000 }, async () => {
      const { context, page, requests } = await openWithoutIslands(variant);
      try {
        await page.goto(`${instance.baseUrl}/setup`);
        await page.getByLabel('Password').waitFor();
        assertNothingSent(page, await tryToSubmit(page, requests), '/setup');
        await assertButtonWaits(page);
      } finally {
        await context.close();
      }
    });
  }

  describe('after setup', () => {
    let adminCookie: string;
    before(async () => {
      const admin = await completeSetup(instance);
      assert.ok(admin.sessionCookie);
      adminCookie = `dt_session=${admin.sessionCookie}`;
    });

    // /forgot-password shows no form on an instance without mail; the source check below covers its form.
    const screens = [
      { url: '/login', hasPassword: true },
      { url: '/signup', hasPassword: true },
      { url: '/reset-password?token=abc', hasPassword: true },
      { url: '/settings', hasPassword: true, signedIn: true },
    ];
    for (const variant of WITHOUT_ISLANDS) {
      for (const screen of screens) {
        test(`${screen.url} (${variant.name}): Enter and a click submit nothing`, { timeout: 30_000 }, async () => {
          const { context, page, requests } = await openWithoutIslands(variant, screen.signedIn ? adminCookie : undefined);
          try {
            await page.goto(`${instance.baseUrl}${screen.url}`);
            assert.equal(await page.locator('main input[type=password]').count() > 0, screen.hasPassword);
            assertNothingSent(page, await tryToSubmit(page, requests), screen.url);
            await assertButtonWaits(page);
          } finally {
            await context.close();
          }
        });
      }
    }

    test('once hydrated, the same login form signs in with a POST to the API and a clean address', { timeout: 30_000 }, async () => {
      const context = await browser.newContext({ locale: 'en-US' });
      context.setDefaultTimeout(10_000);
      try {
        const page = await context.newPage();
        const urls: string[] = [];
        page.on('request', (request) => urls.push(`${request.method()} ${request.url()}`));
        await page.goto(`${instance.baseUrl}/login`);
        await waitForIslands(page);
        await page.getByLabel('Username or e-mail address').fill('nobody');
        await page.getByLabel('Password').fill(SECRET);
        await page.getByLabel('Password').press('Enter');
        await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor();
        assert.equal(page.url(), `${instance.baseUrl}/login`);
        assert.ok(urls.includes(`POST ${instance.baseUrl}/api/v1/auth/login`), urls.join('\n'));
        assert.ok(!urls.some((url) => url.includes(SECRET)), 'no request carries the password in its URL');
      } finally {
        await context.close();
      }
    });

    test('the waiting button looks and sits exactly as the ready one: nothing jumps when the island wakes', { timeout: 30_000 }, async () => {
      const looks = async (variant: Variant | null) => {
        const { context, page } = variant ? await openWithoutIslands(variant) : await openWithoutIslands({ name: 'hydrated', javaScriptEnabled: true, blockIslands: false });
        try {
          await page.goto(`${instance.baseUrl}/login`);
          if (!variant) await waitForIslands(page);
          const submit = page.locator('main form button[type=submit]');
          assert.equal(await submit.isDisabled(), variant !== null);
          return await submit.evaluate((button) => {
            const box = button.getBoundingClientRect();
            const style = getComputedStyle(button);
            return { box: [box.x, box.y, box.width, box.height], color: style.color, background: style.backgroundColor, opacity: style.opacity, text: button.textContent?.trim() };
          });
        } finally {
          await context.close();
        }
      };
      const ready = await looks(null);
      for (const variant of WITHOUT_ISLANDS) assert.deepEqual(await looks(variant), ready, variant.name);
    });
  });
});

/** Every .svelte and .astro file under editor/src and site/src. */
function markupFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return markupFiles(full);
    return /\.(svelte|astro)$/.test(name) ? [full] : [];
  });
}

/**
 * A plain `method="get"` form without an island (a search box) is navigation: the browser's
 * own submission is what it is for, and it carries no secret. Such forms are left out.
 */
const NAVIGATION_FORM = /<form\b[^>]*\bmethod="get"[^>]*>[\s\S]*?<\/form>/g;
const sourceOf = (file: string) => readFileSync(file, 'utf8').replace(NAVIGATION_FORM, '');

test('every <form> in editor/src and site/src submits through SubmitButton and no other submit button', () => {
  const files = [...markupFiles(path.join(ROOT, 'editor/src')), ...markupFiles(path.join(ROOT, 'site/src'))];
  const withForms = files.filter((file) => /<form[\s>]/.test(sourceOf(file)));
  assert.ok(withForms.length >= 5, `found only ${withForms.length} files with forms`);
  for (const file of withForms) {
    const source = sourceOf(file);
    const where = path.relative(ROOT, file);
    assert.match(source, /<SubmitButton\s/, `${where}: a form without SubmitButton, so nothing holds it back before hydration`);
    assert.doesNotMatch(source, /type=["']?submit|<button(?![^>]*type=)/, `${where}: a submit button of its own, which would submit before hydration`);
  }
  const submitButtons = files.filter((file) => /type=["']?submit/.test(sourceOf(file)));
  assert.deepEqual(submitButtons.map((file) => path.relative(ROOT, file)), ['editor/src/forms/SubmitButton.svelte']);
});
