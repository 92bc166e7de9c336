/**
 * The public layer as a reader meets it: a real instance with the site, a public pond made
 * through the API (web fonts, a page tree four deep, public and private children, backlinks
 * from a public and a private page, every kind of transclusion), opened in Chromium with
 * JavaScript disabled — the documents carry none, so that is how they must work. What a
 * reader sees is asserted through roles and texts; axe runs in a separate context with
 * JavaScript on (it needs script). Screenshots: desktop, phone, dark, print, German, under
 * SHOT_DIR (publicFixtures.ts) as `public-<shape>-<name>.png`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { apiText } from '../../api/i18n/apiTexts.ts';
import { createTranslator, type Translate } from '../../editor/src/i18n/translator.ts';
import { expectAccessible } from './axe.ts';
import { launchChromium } from './browserSession.ts';
import { createPage, createPond, DESKTOP, grantPublic, openReader, patchSettings, PHONE, regenerate, startPublicInstance, type PublicInstance, type Reader } from './publicFixtures.ts';

const POND = 'field-guide';
const MAIN = `/${POND}/maintenance`;

let setup: PublicInstance;
let browser: Browser;
let mainUpdatedAt: string;

/**
 * Field Guide (public, fonts source-serif-4 / inter / jetbrains-mono):
 *   Handbook › Care and upkeep › Pond maintenance › { Winter preparations, Secret plans (denied) }
 * plus transclusion targets, a public and a private page linking to Pond maintenance, and a
 * public pond "Elsewhere" holding `foreign`.
 */
async function buildFieldGuide({ admin }: PublicInstance): Promise<void> {
  const pondId = await createPond(admin, 'Field Guide', POND);
  const fonts = await admin.patch(`/ponds/${pondId}`, { fonts: { body: 'source-serif-4', heading: 'inter', code: 'jetbrains-mono' } });
  assert.equal(fonts.status, 200, fonts.text);
  await grantPublic(admin, pondId, { type: 'pond' });
  const elsewhere = await createPond(admin, 'Elsewhere', 'elsewhere');
  await grantPublic(admin, elsewhere, { type: 'pond' });
  await createPage(admin, elsewhere, { title: 'Foreign', slug: 'foreign', markdown: 'Foreign words from another pond.' });

  await createPage(admin, pondId, { title: 'Brook trout', slug: 'trout', markdown: 'Brook trout need cold, clean water.' });
  await createPage(admin, pondId, { title: 'Level three', slug: 'level-three', markdown: 'Third level text.' });
  await createPage(admin, pondId, { title: 'Level two', slug: 'level-two', markdown: 'Second level text.\n\n![[level-three]]\n' });
  await createPage(admin, pondId, { title: 'Level one', slug: 'level-one', markdown: 'First level text.\n\n![[level-two]]\n' });
  await createPage(admin, pondId, { title: 'Echo', slug: 'echo', markdown: 'Echo text.\n\n![[maintenance]]\n' });
  const hidden = await createPage(admin, pondId, { title: 'Hidden notes', slug: 'hidden-notes', markdown: 'Hidden words nobody outside may read.' });
  await grantPublic(admin, pondId, { type: 'page', id: hidden.id }, 'deny');

  const handbook = await createPage(admin, pondId, { title: 'Handbook', slug: 'handbook', markdown: 'Everything about the pond.' });
  const care = await createPage(admin, pondId, { title: 'Care and upkeep', slug: 'care', parentId: handbook.id, markdown: 'Looking after it.' });
  const main = await createPage(admin, pondId, {
    title: 'Pond maintenance',
    slug: 'maintenance',
    parentId: care.id,
    markdown: [
      'Keeping a village pond healthy takes a little work every season.',
      '## Water quality',
      'Test the water **every week** and note the *results*.',
      '### Oxygen levels',
      'Use `test strips` for a quick reading:',
      '```text\npH 7.2   O2 8 mg/l\n```',
      '## Equipment',
      'A pump, a net and a long pole.',
      '## Borrowed notes',
      '![[trout]]',
      '![[level-one]]',
      '![[echo]]',
      '![[nowhere]]',
      '![[hidden-notes]]',
      '![[foreign]]',
    ].join('\n\n'),
  });
  mainUpdatedAt = main.updatedAt;
  await createPage(admin, pondId, { title: 'Winter preparations', slug: 'winter', parentId: main.id, markdown: 'Before the ice comes.' });
  const secret = await createPage(admin, pondId, { title: 'Secret plans', slug: 'secret-plans', parentId: main.id, markdown: 'Nobody may know.' });
  await grantPublic(admin, pondId, { type: 'page', id: secret.id }, 'deny');
  await createPage(admin, pondId, { title: 'Volunteer rota', slug: 'rota', markdown: 'Who does what: see [[maintenance]].' });
  const minutes = await createPage(admin, pondId, { title: 'Board minutes', slug: 'minutes', markdown: 'We talked about [[maintenance]].' });
  await grantPublic(admin, pondId, { type: 'page', id: minutes.id }, 'deny');
}

before(async () => {
  setup = await startPublicInstance();
  await buildFieldGuide(setup);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await setup?.instance.close();
});

function reader(options: Parameters<typeof openReader>[2]): Promise<Reader> {
  return openReader(browser, setup.instance.baseUrl, options);
}

async function open(page: Page, path: string, status = 200): Promise<Record<string, string>> {
  const response = await page.goto(`${setup.instance.baseUrl}${path}`, { waitUntil: 'load' });
  assert.equal(response?.status(), status, `${path} answers ${status}`);
  return response!.headers();
}

function expectNoScriptPolicy(headers: Record<string, string>, path: string): void {
  const csp = headers['content-security-policy'] ?? '';
  assert.match(csp, /default-src 'none'/, `${path}: ${csp}`);
  assert.doesNotMatch(csp, /script-src/, `${path}: no script source in ${csp}`);
}

/** The texts of the links in a landmark or region named `name`. */
async function linksIn(page: Page, role: 'navigation' | 'region', name: string): Promise<string[]> {
  return page.getByRole(role, { name, exact: true }).getByRole('link').allTextContents();
}

/** Every font file the page asked for: `<catalog id>/<file>` with its status. */
function fontFiles(seen: Reader): string[] {
  return seen.responses.filter((response) => new URL(response.url).pathname.startsWith('/assets/fonts/')).map((response) => `${response.status} ${new URL(response.url).pathname.split('/').slice(3).join('/')}`);
}

/** What every public page shows, in the instance's language `t`. */
async function expectMainPage(page: Page, t: Translate): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Pond maintenance' }).waitFor();
  assert.deepEqual(await linksIn(page, 'navigation', t('public.breadcrumbs')), ['Field Guide', 'Handbook', 'Care and upkeep']);
  const crumbs = page.getByRole('navigation', { name: t('public.breadcrumbs'), exact: true });
  assert.equal(await crumbs.locator('[aria-current="page"]').textContent(), 'Pond maintenance');
  assert.equal(await page.locator('time').getAttribute('datetime'), new Date(mainUpdatedAt).toISOString());
  assert.ok(await page.getByText(t('public.lastUpdated')).isVisible());
  assert.deepEqual(await linksIn(page, 'region', t('public.children')), ['Winter preparations']);
  assert.deepEqual(await linksIn(page, 'region', t('public.backlinks')), ['Volunteer rota']);
  const legal = page.getByRole('navigation', { name: t('public.footerNavigation'), exact: true });
  assert.equal(await legal.getByRole('link', { name: t('public.imprint') }).getAttribute('href'), '/legal/imprint');
  assert.equal(await legal.getByRole('link', { name: t('public.privacy') }).getAttribute('href'), '/legal/privacy');
}

describe('a public page in Chromium without JavaScript', () => {
  test('title, breadcrumbs, contents, children, backlinks, updated time, footer; fonts from our origin only', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...DESKTOP, javaScriptEnabled: false, locale: 'en-US', shotPrefix: 'public-desktop-en' });
    try {
      const { page } = seen;
      const headers = await open(page, MAIN);
      expectNoScriptPolicy(headers, MAIN);
      await expectMainPage(page, createTranslator('en'));
      assert.equal(await page.title(), 'Pond maintenance · Field Guide');
      assert.equal(await page.locator('script').count(), 0);

      // The contents list the page's own headings, each linking to the heading's id.
      const contents = page.getByRole('navigation', { name: 'Contents', exact: true }).getByRole('link');
      assert.deepEqual(await contents.allTextContents(), ['Water quality', 'Oxygen levels', 'Equipment', 'Borrowed notes']);
      for (const link of await contents.all()) {
        const href = (await link.getAttribute('href'))!;
        assert.match(href, /^#h-/);
        const heading = page.locator(`[id="${href.slice(1)}"]`);
        assert.equal(await heading.count(), 1, `one element with ${href}`);
        assert.match(await heading.evaluate((element) => element.tagName), /^H[2-3]$/);
        assert.equal(await heading.textContent(), await link.textContent());
      }

      // Private pages show nowhere: not as children, backlinks or transcluded text.
      const body = (await page.locator('body').textContent())!;
      for (const hidden of ['Secret plans', 'Board minutes', 'Hidden notes', 'Hidden words', 'Foreign words']) assert.ok(!body.includes(hidden), `"${hidden}" is not shown`);

      // The web fonts the page uses came from our origin, every file answered 200.
      await page.waitForLoadState('networkidle');
      const files = fontFiles(seen);
      for (const face of ['source-serif-4/', 'inter/', 'jetbrains-mono/']) assert.ok(files.some((file) => file.startsWith(`200 ${face}`)), `a ${face} file fetched (got ${files.join(', ')})`);
      assert.ok(files.includes(`200 source-serif-4/${files.find((file) => file.includes('source-serif-4/'))!.split('/')[1]}/source-serif-4-latin-400-normal.woff2`), files.join(', '));
      assert.ok(files.every((file) => file.startsWith('200 ')), files.join(', '));
      assert.deepEqual(seen.foreignRequests, [], 'no request to another origin');
      assert.deepEqual(seen.problems, []);
      await seen.screenshot('page');
      // A contents entry takes the reader to its heading (without any script).
      await contents.filter({ hasText: 'Equipment' }).click();
      assert.equal(new URL(page.url()).hash, '#h-equipment');
      assert.ok(await page.locator('#h-equipment').isVisible());
    } finally {
      await seen.close();
    }
  });

  test('transclusions: public expanded, depth 2 expanded and 3 a link; cycle a link, missing, private and other-pond targets plain text', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...DESKTOP, javaScriptEnabled: false });
    try {
      const { page } = seen;
      await open(page, MAIN);
      const expanded = (slug: string) => page.locator(`.dt-transclusion[data-slug="${slug}"]`);
      const plainLink = (slug: string) => page.locator(`a.dt-wikilink[data-slug="${slug}"]`);
      assert.ok(await expanded('trout').getByText('Brook trout need cold, clean water.').isVisible());
      // Depth 1 and 2 expanded inside each other; depth 3 is the plain wikilink.
      assert.ok(await expanded('level-one').getByText('First level text.').isVisible());
      assert.ok(await expanded('level-one').locator(expanded('level-two')).getByText('Second level text.').isVisible());
      assert.equal(await expanded('level-three').count(), 0);
      assert.ok(await expanded('level-two').locator(plainLink('level-three')).isVisible());
      assert.equal(await page.getByText('Third level text.').count(), 0);
      // Echo transcludes this page back: the cycle stops at a link, the page's own text once.
      assert.ok(await expanded('echo').getByText('Echo text.').isVisible());
      assert.ok(await expanded('echo').locator(plainLink('maintenance')).isVisible());
      assert.equal(await page.getByText('Keeping a village pond healthy').count(), 1);
      // Missing, private and other-pond targets: the slug as plain text, nothing of the target.
      // Visitors never meet a dead link (issue 35): no href to the 404 all three would be.
      const unavailable = (slug: string) => page.locator(`span.dt-wikilink-unavailable[data-slug="${slug}"]`);
      for (const slug of ['nowhere', 'hidden-notes', 'foreign']) {
        assert.equal(await expanded(slug).count(), 0, `${slug} is not expanded`);
        assert.equal(await plainLink(slug).count(), 0, `${slug} is no link`);
        assert.equal(await unavailable(slug).textContent(), slug);
        assert.ok(await unavailable(slug).isVisible());
        assert.equal(await page.locator(`a[href$="/${slug}"]`).count(), 0);
      }
      assert.equal(await page.getByText('Hidden words').count(), 0);
      assert.equal(await page.getByText('Foreign words').count(), 0);
      assert.deepEqual(seen.problems, []);
    } finally {
      await seen.close();
    }
  });

  for (const look of [
    { name: 'phone-en', options: { ...PHONE, locale: 'en-US' } },
    { name: 'desktop-en-dark', options: { ...DESKTOP, colorScheme: 'dark' as const } },
    { name: 'phone-en-dark', options: { ...PHONE, colorScheme: 'dark' as const } },
  ]) {
    test(`the page on ${look.name}`, { timeout: 60_000 }, async () => {
      const seen = await reader({ ...look.options, javaScriptEnabled: false, shotPrefix: `public-${look.name}` });
      try {
        await open(seen.page, MAIN);
        await expectMainPage(seen.page, createTranslator('en'));
        await seen.page.waitForLoadState('networkidle');
        assert.deepEqual(seen.foreignRequests, []);
        assert.deepEqual(seen.problems, []);
        await seen.screenshot('page');
      } finally {
        await seen.close();
      }
    });
  }

  test('print: the article on white, without header, contents and footer', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...DESKTOP, colorScheme: 'dark', javaScriptEnabled: false, shotPrefix: 'public-desktop-en' });
    try {
      await open(seen.page, MAIN);
      await seen.page.emulateMedia({ media: 'print' });
      assert.equal(await seen.page.locator('.site-footer').isVisible(), false);
      assert.equal(await seen.page.getByRole('navigation', { name: 'Contents', exact: true }).isVisible(), false);
      assert.ok(await seen.page.getByRole('heading', { level: 1, name: 'Pond maintenance' }).isVisible());
      await seen.screenshot('print');
    } finally {
      await seen.close();
    }
  });
});

describe('the pond index, the landing page and the legal pages', () => {
  test('the pond index shows the public page tree only', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...DESKTOP, javaScriptEnabled: false, shotPrefix: 'public-desktop-en' });
    try {
      const headers = await open(seen.page, `/${POND}`);
      expectNoScriptPolicy(headers, `/${POND}`);
      await seen.page.getByRole('heading', { level: 1, name: 'Field Guide' }).waitFor();
      await seen.page.getByText('Pages', { exact: true }).waitFor();
      const tree = seen.page.locator('.pond-tree');
      const titles = await tree.getByRole('link').allTextContents();
      for (const title of ['Handbook', 'Care and upkeep', 'Pond maintenance', 'Winter preparations', 'Brook trout', 'Volunteer rota']) assert.ok(titles.includes(title), `${title} in ${titles.join(', ')}`);
      for (const title of ['Secret plans', 'Board minutes', 'Hidden notes', 'Foreign']) assert.ok(!titles.includes(title), `${title} not listed`);
      // Nesting: Winter preparations sits under Pond maintenance, under Care and upkeep, under Handbook.
      const nested = tree.locator('li', { has: seen.page.getByRole('link', { name: 'Handbook', exact: true }) }).locator('li', { has: seen.page.getByRole('link', { name: 'Pond maintenance' }) });
      assert.equal(await nested.getByRole('link', { name: 'Winter preparations' }).count(), 1);
      assert.equal(await seen.page.getByRole('link', { name: 'Pond maintenance' }).getAttribute('href'), MAIN);
      await seen.page.waitForLoadState('networkidle');
      assert.ok(fontFiles(seen).length > 0 && fontFiles(seen).every((file) => file.startsWith('200 ')), fontFiles(seen).join(', '));
      assert.deepEqual(seen.foreignRequests, []);
      await seen.screenshot('pond-index');
    } finally {
      await seen.close();
    }
  });

  test('a visitor at / gets the landing page; the legal pages say they are not filled in yet, then show their text', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...DESKTOP, javaScriptEnabled: false, shotPrefix: 'public-desktop-en' });
    try {
      const { page } = seen;
      // The landing page is a generated document again, in the visitor's language (issue 35).
      expectNoScriptPolicy(await open(page, '/'), '/');
      await page.getByRole('heading', { level: 1, name: 'Welcome to Testteich' }).waitFor();
      assert.equal(await page.getByRole('main').getByRole('paragraph').getByRole('link', { name: 'Sign in' }).getAttribute('href'), '/login');
      await seen.screenshot('landing');
      for (const kind of ['imprint', 'privacy'] as const) {
        expectNoScriptPolicy(await open(page, `/legal/${kind}`), `/legal/${kind}`);
        await page.getByRole('heading', { level: 1, name: apiText(`legal.${kind}`, 'en') }).waitFor();
        assert.ok(await page.getByText(apiText('legal.notConfigured', 'en')).isVisible());
      }
      await seen.screenshot('privacy-unconfigured');
      await patchSettings(setup.admin, { 'legal.imprint': '# Imprint\n\nDorfverein Teichwiese e.V., Am Teich 1, 12345 Dorf.\n\nContact: **verein@example.org**' });
      await open(page, '/legal/imprint');
      await page.getByRole('heading', { level: 1, name: 'Imprint' }).waitFor();
      assert.ok(await page.getByText('Dorfverein Teichwiese e.V., Am Teich 1, 12345 Dorf.').isVisible());
      assert.equal(await page.getByText(apiText('legal.notConfigured', 'en')).count(), 0);
      assert.deepEqual(seen.foreignRequests, []);
      await seen.screenshot('imprint');
    } finally {
      await seen.close();
    }
  });

  test('a private page answers exactly like a missing one: a localized 404 with a sign-in link', { timeout: 60_000 }, async () => {
    for (const [locale, shape] of [['en', { ...DESKTOP, locale: 'en-US' }], ['de', { ...PHONE, locale: 'de-DE' }]] as const) {
      const t = createTranslator(locale);
      const seen = await reader({ ...shape, javaScriptEnabled: false, shotPrefix: `public-${locale === 'en' ? 'desktop-en' : 'phone-de'}` });
      try {
        const bodies: string[] = [];
        for (const path of [`/${POND}/secret-plans`, `/${POND}/no-such-page`, `/${POND}/minutes`]) {
          await open(seen.page, path, 404);
          await seen.page.getByRole('heading', { level: 1, name: t('notFound.title') }).waitFor();
          const signIn = seen.page.getByRole('main').getByRole('link', { name: t('notFound.signIn') });
          assert.equal(await signIn.getAttribute('href'), `/login?next=${encodeURIComponent(path)}`);
          // Identical but for the address the sign-in link returns to.
          bodies.push((await seen.page.content()).replaceAll(encodeURIComponent(path), 'PATH').replaceAll(path, 'PATH'));
        }
        assert.equal(bodies[0], bodies[1], 'a private page and a missing page look the same');
        assert.equal(bodies[2], bodies[1]);
        assert.ok(!bodies[0]!.includes('Secret plans'));
        await seen.screenshot('not-found');
      } finally {
        await seen.close();
      }
    }
  });

  test('axe finds nothing serious on the page, the pond index, the landing and the legal pages (desktop, phone, dark)', { timeout: 120_000 }, async () => {
    for (const [shape, options] of [['desktop-en', DESKTOP], ['phone-en', PHONE], ['desktop-en-dark', { ...DESKTOP, colorScheme: 'dark' as const }]] as const) {
      // axe runs as script: a context with JavaScript on (the documents have none of their own).
      const seen = await reader({ ...options });
      try {
        for (const path of [MAIN, `/${POND}`, '/', '/legal/imprint', '/legal/privacy']) {
          await open(seen.page, path);
          await expectAccessible(seen.page, `${path} (${shape})`);
        }
        assert.deepEqual(seen.foreignRequests, []);
      } finally {
        await seen.close();
      }
    }
  });
});

describe('in German (instance default locale de)', () => {
  before(async () => {
    await patchSettings(setup.admin, { 'instance.defaultLocale': 'de' });
    // The settings change queued every document; the worker's regeneration rewrites them.
    await regenerate(setup.instance);
  });

  test('the page, the pond index, the landing page and the legal pages speak German', { timeout: 90_000 }, async () => {
    const t = createTranslator('de');
    for (const [shape, options] of [['desktop-de', DESKTOP], ['phone-de', PHONE]] as const) {
      const seen = await reader({ ...options, javaScriptEnabled: false, locale: 'en-US', shotPrefix: `public-${shape}` });
      try {
        const { page } = seen;
        await open(page, MAIN);
        assert.equal(await page.locator('html').getAttribute('lang'), 'de');
        await expectMainPage(page, t);
        assert.deepEqual(await linksIn(page, 'navigation', t('public.contents')), ['Water quality', 'Oxygen levels', 'Equipment', 'Borrowed notes']);
        assert.match((await page.locator('time').textContent())!, /\d{4}/);
        await seen.screenshot('page');
        await open(page, `/${POND}`);
        await page.getByText(t('public.pondPages'), { exact: true }).waitFor();
        assert.ok(await page.locator('.pond-tree').getByRole('link', { name: 'Winter preparations' }).isVisible());
        await seen.screenshot('pond-index');
        // The landing page speaks the browser's language (issue 35), here English.
        await open(page, '/');
        await page.getByRole('heading', { level: 1, name: 'Welcome to Testteich' }).waitFor();
        await seen.screenshot('landing');
        await open(page, '/legal/privacy');
        await page.getByRole('heading', { level: 1, name: apiText('legal.privacy', 'de') }).waitFor();
        assert.ok(await page.getByText(apiText('legal.notConfigured', 'de')).isVisible());
        await seen.screenshot('privacy-unconfigured');
        assert.deepEqual(seen.foreignRequests, []);
        assert.deepEqual(seen.problems, []);
      } finally {
        await seen.close();
      }
    }
  });

  test('axe finds nothing serious on the German documents', { timeout: 60_000 }, async () => {
    const seen = await reader({ ...PHONE });
    try {
      for (const path of [MAIN, `/${POND}`, '/', '/legal/imprint', '/legal/privacy']) {
        await open(seen.page, path);
        await expectAccessible(seen.page, `${path} (phone-de)`);
      }
    } finally {
      await seen.close();
    }
  });
});
