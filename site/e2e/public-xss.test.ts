/**
 * The XSS corpus (content-pipeline/html/xssVectors.ts) through every way a text reaches a
 * public document or feed — page Markdown, page titles (and the slugs derived from them),
 * version labels, pond names, the instance name, the landing and legal texts — loaded in
 * Chromium with JavaScript enabled: nothing may execute (xssDetector.ts says what counts).
 *
 * Each document is loaded twice: as served (its CSP has no script source at all), and with
 * the CSP bypassed, so the sanitizing alone is shown to suffice. Feeds are opened as
 * documents too, then parsed with the browser's XML parser and their entries rendered into
 * an HTML page without any CSP, as a feed reader without a sanitizer of its own would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { XSS_VECTORS } from '../../content-pipeline/html/xssVectors.ts';
import { launchChromium } from './browserSession.ts';
import { createPond, DESKTOP, forgetDocuments, grantPublic, openReader, patchSettings, startPublicInstance, type PublicInstance } from './publicFixtures.ts';
import { executableMarkup, guard, type GuardedReader } from './xssDetector.ts';

/** Vector pages per pond: a pond feed lists 50 pages, so every page lands in one. */
const PAGES_PER_POND = 40;
/** Pond and instance names: at most 100 characters. */
const NAME_MAX = 100;

let setup: PublicInstance;
let browser: Browser;
/** Every document path to load, and every feed (URL → the entry titles it must carry). */
const documents: string[] = ['/', '/legal/imprint', '/legal/privacy'];
const feeds = new Map<string, string[]>();
/** Vectors the API refused as a page title (reported, must be a 400, never a failure). */
const refusedTitles: string[] = [];
let firstPondId: string;

/** The payload in every Markdown position a page body can hold it (as xssCorpus.test.ts feeds the pipeline). */
function markdownWith(payload: string): string[] {
  const oneLine = payload.replace(/\n/g, ' ');
  return [
    payload,
    `[x](${oneLine})`,
    `[x](<${oneLine}>)`,
    `[x](#${oneLine} "${oneLine}")`,
    `![${oneLine}](${oneLine} "${oneLine}")`,
    `<${oneLine}>`,
    `[x]\n\n[x]: ${oneLine}`,
    `text ${payload} **${payload}**`,
    `> ${payload}\n\n- ${payload}`,
    `| a |\n| - |\n| ${oneLine} |`,
    `# ${oneLine}\n\n## ${oneLine}\n\n[to it](#${oneLine})`,
    `[[${oneLine}]]`,
    `[[x|${oneLine}]]`,
    `![[${oneLine}]]`,
    `[@${oneLine}](dt-mention:${oneLine})`,
    `:::section{plugin="${oneLine}" style="${oneLine}"}\n${payload}\n:::`,
    `\`\`\`\`dt-plugin a/b\n${JSON.stringify({ v: payload })}\n\`\`\`\``,
    `\`\`\`${oneLine}\ncode\n\`\`\``,
  ];
}

/**
 * Every vector in every position: the landing page and the legal pages get all of them at
 * once — but for a NUL character, which settings refuse as unstorable (400 invalid_text).
 */
const ALL_VECTORS_MARKDOWN = XSS_VECTORS.filter(({ payload }) => !payload.includes('\0'))
  .flatMap(({ payload }) => markdownWith(payload))
  .join('\n\n');

/**
 * Ponds `xss-1` … each holding up to PAGES_PER_POND vector pages: titled with the payload
 * (slug derived from it), its body the payload in every position plus a link to and a
 * transclusion of the page before (backlinks, two levels of transcluded payloads), placed in
 * a binary tree (breadcrumbs and children show payload titles), with a version labelled with
 * the payload (the page feed).
 */
async function buildVectorPonds({ admin }: PublicInstance): Promise<void> {
  for (let start = 0, pondNumber = 1; start < XSS_VECTORS.length; start += PAGES_PER_POND, pondNumber++) {
    const pondSlug = `xss-${pondNumber}`;
    const pondId = await createPond(admin, `XSS ${pondNumber}`, pondSlug);
    await grantPublic(admin, pondId, { type: 'pond' });
    firstPondId ??= pondId;
    documents.push(`/${pondSlug}`);
    const created: { id: string; slug: string }[] = [];
    const pondFeedTitles: string[] = [];
    for (const { payload } of XSS_VECTORS.slice(start, start + PAGES_PER_POND)) {
      const previous = created.at(-1);
      const parent = created.length > 0 ? created[Math.floor((created.length - 1) / 2)] : undefined;
      const markdown = [...markdownWith(payload), ...(previous ? [`Before this: [[${previous.slug}]].`, `![[${previous.slug}]]`] : [])].join('\n\n');
      const response = await admin.post(`/ponds/${pondId}/pages`, { title: payload, markdown, ...(parent ? { parentId: parent.id } : {}) });
      if (response.status === 400) {
        refusedTitles.push(payload);
        continue;
      }
      assert.equal(response.status, 201, `title ${JSON.stringify(payload)}: ${response.text}`);
      const page = response.body as { id: string; slug: string; title: string };
      created.push(page);
      pondFeedTitles.push(page.title);
      documents.push(`/${pondSlug}/${page.slug}`);
      const version = await admin.post(`/pages/${page.id}/versions`, { label: payload });
      assert.equal(version.status, 201, `label ${JSON.stringify(payload)}: ${version.text}`);
      feeds.set(`/api/v1/public/${pondSlug}/${page.slug}/feed.xml`, [version.body.label as string]);
    }
    feeds.set(`/api/v1/public/${pondSlug}/feed.xml`, pondFeedTitles);
  }
}

before(async () => {
  setup = await startPublicInstance();
  await buildVectorPonds(setup);
  await patchSettings(setup.admin, { 'home.content': ALL_VECTORS_MARKDOWN, 'legal.imprint': ALL_VECTORS_MARKDOWN, 'legal.privacy': ALL_VECTORS_MARKDOWN });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await setup?.instance.close();
});

async function guardedReader(options: { bypassCSP?: boolean } = {}): Promise<GuardedReader> {
  return guard(await openReader(browser, setup.instance.baseUrl, { ...DESKTOP, javaScriptEnabled: true, ...options }));
}

/** Opens a public document; fails on any execution, on executable markup, and on a CSP that allows script. */
async function expectInert(reader: GuardedReader, path: string): Promise<void> {
  const response = await reader.page.goto(`${setup.instance.baseUrl}${path}`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, path);
  const csp = response!.headers()['content-security-policy'] ?? '';
  assert.match(csp, /default-src 'none'/, `${path}: ${csp}`);
  assert.doesNotMatch(csp, /script-src|'unsafe-eval'/, `${path}: the policy allows no script (${csp})`);
  // Hover and focus everything a reader could reach, for handlers that wait for them.
  await reader.page.mouse.move(200, 200);
  await reader.page.keyboard.press('Tab');
  assert.deepEqual(await executableMarkup(reader.page), [], `${path}: executable markup`);
  assert.deepEqual(await reader.takeFindings(), [], `${path}: executions`);
}

interface ParsedFeed {
  error: string | null;
  title: string;
  entries: { title: string; summary: string; content: string }[];
}

/** The feed through the browser's own XML parser. */
async function parseFeed(reader: GuardedReader, xml: string): Promise<ParsedFeed> {
  return reader.page.evaluate((source) => {
    const feed = new DOMParser().parseFromString(source, 'application/xml');
    const error = feed.querySelector('parsererror');
    const text = (parent: Element | Document, name: string) => parent.getElementsByTagNameNS('http://www.w3.org/2005/Atom', name)[0]?.textContent ?? '';
    const entries = [...feed.getElementsByTagNameNS('http://www.w3.org/2005/Atom', 'entry')].map((entry) => ({ title: text(entry, 'title'), summary: text(entry, 'summary'), content: text(entry, 'content') }));
    return { error: error ? error.textContent : null, title: text(feed.documentElement, 'title'), entries };
  }, xml);
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A feed opened as a document, then its entries rendered the way a feed reader that trusts
 * the feed's HTML would: text fields as text, `content type="html"` as markup, no CSP.
 */
async function expectFeedInert(reader: GuardedReader, url: string, expectedTitles: string[]): Promise<ParsedFeed> {
  const response = await reader.page.goto(`${setup.instance.baseUrl}${url}`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, url);
  assert.match(response!.headers()['content-type'] ?? '', /^application\/atom\+xml/);
  assert.doesNotMatch(response!.headers()['content-security-policy'] ?? "default-src 'none'", /script-src/);
  assert.deepEqual(await reader.takeFindings(), [], `${url} as a document`);
  const xml = await (await fetch(`${setup.instance.baseUrl}${url}`)).text();
  const parsed = await parseFeed(reader, xml);
  assert.equal(parsed.error, null, `${url} is well-formed XML`);
  // Escaped exactly once: the parser gives back the very text that was stored.
  assert.deepEqual(parsed.entries.map((entry) => entry.title).sort(), [...expectedTitles].sort(), `${url}: entry titles`);
  const view = `${setup.instance.baseUrl}/__feed-reader-view`;
  const html = `<!doctype html><html><head><title>${escapeHtml(parsed.title)}</title></head><body><h1>${escapeHtml(parsed.title)}</h1>${parsed.entries
    .map((entry) => `<article><h2>${escapeHtml(entry.title)}</h2><p>${escapeHtml(entry.summary)}</p>${entry.content}</article>`)
    .join('')}</body></html>`;
  await reader.page.route(view, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await reader.page.goto(view, { waitUntil: 'load' });
  await reader.page.unroute(view);
  assert.deepEqual(await executableMarkup(reader.page), [], `${url}: entries hold executable markup`);
  assert.deepEqual(await reader.takeFindings(), [], `${url}: rendering its entries executed something`);
  return parsed;
}

describe('the XSS corpus in public documents and feeds, in Chromium with JavaScript on', () => {
  test('the corpus reached the documents: vector titles, derived slugs, a page title escaped exactly once', { timeout: 60_000 }, async () => {
    assert.ok(XSS_VECTORS.length >= 60);
    assert.ok(documents.length >= XSS_VECTORS.length - refusedTitles.length + 3);
    if (refusedTitles.length > 0) console.log(`titles refused with 400: ${refusedTitles.map((title) => JSON.stringify(title)).join(', ')}`);
    const reader = await guardedReader();
    try {
      await reader.page.goto(`${setup.instance.baseUrl}/xss-1/script-alert-1-script`);
      assert.equal(await reader.page.getByRole('heading', { level: 1 }).first().textContent(), '<script>alert(1)</script>');
      assert.equal(await reader.page.title(), '<script>alert(1)</script> · XSS 1');
      assert.deepEqual(await reader.takeFindings(), []);
    } finally {
      await reader.close();
    }
  });

  test('a slug cannot carry a vector: the API refuses every one as a page slug', async () => {
    for (const { payload } of XSS_VECTORS) {
      if (/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(payload.trim().toLowerCase())) continue; // 'main', 'app': plain words
      const response = await setup.admin.post(`/ponds/${firstPondId}/pages`, { title: 'x', slug: payload });
      assert.equal(response.status, 400, `slug ${JSON.stringify(payload)}`);
    }
  });

  for (const bypassCSP of [false, true]) {
    test(`every vector page, pond index, landing and legal page: nothing runs (${bypassCSP ? 'CSP bypassed: sanitizing alone' : 'as served'})`, { timeout: 300_000 }, async () => {
      const reader = await guardedReader({ bypassCSP });
      try {
        for (const path of documents) await expectInert(reader, path);
      } finally {
        await reader.close();
      }
    });
  }

  test('the detector sees an execution (it is not vacuous)', { timeout: 60_000 }, async () => {
    const reader = await guardedReader();
    try {
      const trap = `${setup.instance.baseUrl}/__detector-trap`;
      await reader.page.route(trap, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>trap</p><img src="x" onerror="alert(1)"><script>confirm(2)</script><a href="javascript:alert(3)">x</a><img src="http://xss.rocks/x.png">' }));
      await reader.page.goto(trap, { waitUntil: 'load' });
      const findings = await reader.takeFindings();
      assert.ok(findings.includes('alert(1)') && findings.includes('confirm(2)'), findings.join(' | '));
      assert.ok(findings.some((finding) => finding.includes('xss.rocks')), findings.join(' | '));
      const markup = await executableMarkup(reader.page);
      assert.ok(markup.includes('<script>') && markup.includes('<img onerror>') && markup.some((entry) => entry.includes('javascript:alert(3)')), markup.join(' | '));
    } finally {
      await reader.close();
    }
  });

  test('every feed: opened as a document, parsed as XML, its entries rendered without a CSP: nothing runs', { timeout: 300_000 }, async () => {
    assert.ok(feeds.size > XSS_VECTORS.length / 2);
    const reader = await guardedReader();
    try {
      for (const [url, titles] of feeds) await expectFeedInert(reader, url, titles);
    } finally {
      await reader.close();
    }
  });

  test('pond names and the instance name: every vector that fits, in the documents and the feed', { timeout: 600_000 }, async () => {
    const { admin, instance } = setup;
    const pondId = await createPond(admin, 'Names', 'names');
    await grantPublic(admin, pondId, { type: 'pond' });
    const page = await admin.post(`/ponds/${pondId}/pages`, { title: 'Plain page', slug: 'plain', markdown: 'Nothing special.' });
    assert.equal(page.status, 201, page.text);
    const reader = await guardedReader();
    let tried = 0;
    try {
      for (const { payload } of XSS_VECTORS) {
        const name = payload.trim();
        if (name.length === 0 || name.length > NAME_MAX) continue;
        tried++;
        await patchSettings(admin, { 'instance.name': name });
        const renamed = await admin.patch(`/ponds/${pondId}`, { name });
        assert.equal(renamed.status, 200, `pond name ${JSON.stringify(name)}: ${renamed.text}`);
        const stored = renamed.body.name as string;
        // Fresh documents for the new names (the worker would regenerate them; generating on demand is the same code).
        await forgetDocuments(instance);
        for (const path of ['/', '/names', '/names/plain']) await expectInert(reader, path);
        assert.equal(await reader.page.locator('.brand').textContent(), name, 'the instance name reads literally');
        assert.equal(await reader.page.locator('.pond-link').textContent(), stored, 'the pond name reads literally');
        const feed = await expectFeedInert(reader, '/api/v1/public/names/feed.xml', ['Plain page']);
        assert.equal(feed.title, stored);
      }
    } finally {
      await reader.close();
    }
    assert.ok(tried > XSS_VECTORS.length / 2, `${tried} names tried`);
  });
});
