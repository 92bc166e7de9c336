/**
 * The XSS corpus (content-pipeline/html/xssVectors.ts) through every way a text reaches a
 * public document or feed — page Markdown, page titles (and the slugs derived from them),
 * version labels, pond names, the instance name, the landing and legal texts — loaded in
 * Chromium with JavaScript enabled: nothing may execute (xssDetector.ts says what counts).
 *
 * Every document is served with a CSP that has no script source at all (checked over HTTP for
 * each), and loaded in Chromium with that CSP bypassed, so the sanitizing alone is shown to
 * suffice. (A load as served would add nothing: the policy only forbids more.) Feeds are opened as
 * documents too, then parsed with the browser's XML parser and their entries rendered into
 * an HTML page without any CSP, as a feed reader without a sanitizer of its own would.
 *
 * Hundreds of documents: four readers load them side by side, and requests to other origins
 * are observed rather than routed (routing would pass every request through this process and
 * turn the browser cache off); Chromium resolves no host but ours, so none of them leaves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { XSS_VECTORS } from '../../content-pipeline/index.ts';
import { launchChromium } from './browserSession.ts';
import { createPage, createPond, DESKTOP, FOREIGN_HOSTS_UNRESOLVABLE, grantPublic, openReader, patchSettings, startPublicInstance, type PublicInstance } from './publicFixtures.ts';
import { executableMarkup, guard, type GuardedReader } from './xssDetector.ts';

/** Vector pages per pond: a pond feed lists 50 pages, so every page lands in one. */
const PAGES_PER_POND = 40;
/** Pond and instance names: at most 100 characters. */
const NAME_MAX = 100;
/** Readers loading documents side by side: the server generates one while Chromium lays out another. */
const READERS = 4;

let setup: PublicInstance;
let browser: Browser;
/** Every document path to load, and every feed (URL → the entry titles it must carry). */
const documents: string[] = ['/', '/legal/imprint', '/legal/privacy'];
const feeds = new Map<string, string[]>();
/** Feeds whose own title must read exactly so (the named ponds'). */
const feedTitles = new Map<string, string>();
/** Pond names at each path that shows one (pond index, page), checked to read literally. */
const pondNames = new Map<string, string>();
/** Vectors the API refused as a page title with a 400 (only a NUL character may be refused). */
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
 * Inputs that are inert once sanitized, yet trip a safety check that reads them wrongly — and
 * a refused document is never published (the page answers 404, `/` falls through to the app,
 * and every page transcluding it fails too):
 * - an image turned link whose title reads `<IMG SRC=javascript:…>` (a value, not markup);
 * - a link to `&#0000106…` (no semicolons: CommonMark keeps it as text, the HTML holds
 *   `&#x26;#0000106…`, which a browser decodes once, to a relative URL, not to `javascript:`).
 */
const ENTITY_IMG_VECTOR = XSS_VECTORS.find(({ payload }) => payload.startsWith('<IMG SRC=&#106;'))!.payload;
const PADDED_ENTITY_VECTOR = XSS_VECTORS.find(({ payload }) => payload.startsWith('&#0000106'))!.payload;
const PUBLISHABLE_TRAPS: Record<string, string> = {
  'image-title': `![${ENTITY_IMG_VECTOR}](${ENTITY_IMG_VECTOR} "${ENTITY_IMG_VECTOR}")`,
  'entity-text-href': `[x](${PADDED_ENTITY_VECTOR})`,
};

/**
 * Every vector in every position: the landing page and the legal pages get all of them at
 * once — but for a NUL character, which settings refuse as unstorable (400 invalid_text).
 */
const ALL_VECTORS_MARKDOWN = XSS_VECTORS.filter(({ payload }) => !payload.includes('\0'))
  .flatMap(({ payload }) => markdownWith(payload))
  .join('\n\n');

/** Text with runs of whitespace as one space: how a browser shows (and a document title keeps) it. */
const flat = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

/** What XML 1.0 cannot carry: a feed leaves these characters out of its text. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

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
      pondFeedTitles.push(page.title.replace(NOT_XML, ''));
      documents.push(`/${pondSlug}/${page.slug}`);
      const version = await admin.post(`/pages/${page.id}/versions`, { label: payload });
      assert.equal(version.status, 201, `label ${JSON.stringify(payload)}: ${version.text}`);
      feeds.set(`/api/v1/public/${pondSlug}/${page.slug}/feed.xml`, [(version.body.label as string).replace(NOT_XML, '')]);
    }
    feeds.set(`/api/v1/public/${pondSlug}/feed.xml`, pondFeedTitles);
  }
}

/** A pond named with each vector that fits a pond name, with one page: index, page and feed show the name. */
async function buildNamedPonds({ admin }: PublicInstance): Promise<void> {
  for (const [index, { payload }] of XSS_VECTORS.entries()) {
    const name = payload.trim();
    // A NUL character is refused as unstorable (400 invalid_text), as in every text field.
    if (name.length === 0 || name.length > NAME_MAX || name.includes('\0')) continue;
    const slug = `name-${index}`;
    const pondId = await createPond(admin, name, slug);
    await grantPublic(admin, pondId, { type: 'pond' });
    const page = await admin.post(`/ponds/${pondId}/pages`, { title: 'Plain page', slug: 'plain', markdown: 'Nothing special.' });
    assert.equal(page.status, 201, page.text);
    for (const path of [`/${slug}`, `/${slug}/plain`]) {
      documents.push(path);
      pondNames.set(path, name);
    }
    feeds.set(`/api/v1/public/${slug}/feed.xml`, ['Plain page']);
    feedTitles.set(`/api/v1/public/${slug}/feed.xml`, name.replace(NOT_XML, ''));
  }
}

before(async () => {
  setup = await startPublicInstance();
  await buildVectorPonds(setup);
  await buildNamedPonds(setup);
  await patchSettings(setup.admin, { 'home.content': ALL_VECTORS_MARKDOWN, 'legal.imprint': ALL_VECTORS_MARKDOWN, 'legal.privacy': ALL_VECTORS_MARKDOWN });
  // The three site documents hold every vector in every position (about 1,900 snippets each):
  // generated here, one after the other, through the public route a visitor's request takes,
  // so the readers below load stored bytes. Generated on the readers' first requests instead,
  // all three at once on a loaded machine, they outlasted a navigation's 15 s.
  for (const path of ['/', '/legal/imprint', '/legal/privacy']) {
    const response = await fetch(`${setup.instance.baseUrl}${path}`);
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/, `${path}: the generated document`);
    await response.arrayBuffer();
  }
  browser = await launchChromium([FOREIGN_HOSTS_UNRESOLVABLE]);
});

after(async () => {
  await browser?.close();
  await setup?.instance.close();
});

async function guardedReader(options: { bypassCSP?: boolean } = {}): Promise<GuardedReader> {
  return guard(await openReader(browser, setup.instance.baseUrl, { ...DESKTOP, javaScriptEnabled: true, foreignRequests: 'observed', ...options }));
}

/**
 * `check` on every item, READERS readers at once, each taking the next item when it is done.
 * Each reader has its own context, so its findings are its own document's.
 */
async function checkWithReaders<T>(items: Iterable<T>, check: (reader: GuardedReader, item: T) => Promise<void>, options: { bypassCSP?: boolean } = {}): Promise<void> {
  const queue = [...items];
  const readers = await Promise.all(Array.from({ length: READERS }, () => guardedReader(options)));
  try {
    await Promise.all(
      readers.map(async (reader) => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await check(reader, item);
      }),
    );
  } finally {
    await Promise.all(readers.map((reader) => reader.close()));
  }
}

/** A generated public document's policy: nothing by default, no script source at all. */
function expectScriptlessPolicy(path: string, csp: string): void {
  assert.match(csp, /default-src 'none'/, `${path} is no generated public document (its generation failed?); CSP ${csp}`);
  assert.doesNotMatch(csp, /script-src|'unsafe-eval'/, `${path}: the policy allows no script (${csp})`);
}

/** Opens a public document; fails on any execution, on executable markup, and on a CSP that allows script. */
async function expectInert(reader: GuardedReader, path: string): Promise<void> {
  const response = await reader.page.goto(`${setup.instance.baseUrl}${path}`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, path);
  expectScriptlessPolicy(path, response!.headers()['content-security-policy'] ?? '');
  // Hover and focus everything a reader could reach, for handlers that wait for them.
  await reader.page.mouse.move(200, 200);
  await reader.page.keyboard.press('Tab');
  assert.deepEqual(await executableMarkup(reader.page), [], `${path}: executable markup`);
  assert.deepEqual(await reader.takeFindings(), [], `${path}: executions`);
  const pondName = pondNames.get(path);
  if (pondName !== undefined) assert.equal(flat(await reader.page.locator('.pond-link').textContent()), flat(pondName), `${path}: the pond name reads literally`);
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

/** The feed fetched and parsed: well-formed, its entry titles exactly the stored ones. */
async function readFeed(reader: GuardedReader, url: string, expectedTitles: string[]): Promise<ParsedFeed> {
  const response = await fetch(`${setup.instance.baseUrl}${url}`);
  assert.equal(response.status, 200, url);
  assert.match(response.headers.get('content-type') ?? '', /^application\/atom\+xml/);
  const parsed = await parseFeed(reader, await response.text());
  assert.equal(parsed.error, null, `${url} is well-formed XML`);
  // Escaped exactly once: the parser gives back the very text that was stored.
  assert.deepEqual(parsed.entries.map((entry) => entry.title).sort(), [...expectedTitles].sort(), `${url}: entry titles`);
  return parsed;
}

/**
 * A feed opened as a document, then its entries rendered the way a feed reader that trusts
 * the feed's HTML would: text fields as text, `content type="html"` as markup, no CSP.
 */
async function expectFeedInert(reader: GuardedReader, url: string, expectedTitles: string[]): Promise<void> {
  const response = await reader.page.goto(`${setup.instance.baseUrl}${url}`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, url);
  assert.doesNotMatch(response!.headers()['content-security-policy'] ?? "default-src 'none'", /script-src/);
  assert.deepEqual(await reader.takeFindings(), [], `${url} as a document`);
  const parsed = await readFeed(reader, url, expectedTitles);
  if (feedTitles.has(url)) assert.equal(parsed.title, feedTitles.get(url), `${url}: the feed title reads literally`);
  const view = `${setup.instance.baseUrl}/__feed-reader-view`;
  const html = `<!doctype html><html><head><title>${escapeHtml(parsed.title)}</title></head><body><h1>${escapeHtml(parsed.title)}</h1>${parsed.entries
    .map((entry) => `<article><h2>${escapeHtml(entry.title)}</h2><p>${escapeHtml(entry.summary)}</p>${entry.content}</article>`)
    .join('')}</body></html>`;
  await reader.page.route(view, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await reader.page.goto(view, { waitUntil: 'load' });
  await reader.page.unroute(view);
  assert.deepEqual(await executableMarkup(reader.page), [], `${url}: entries hold executable markup`);
  assert.deepEqual(await reader.takeFindings(), [], `${url}: rendering its entries executed something`);
}

describe('the XSS corpus in public documents and feeds, in Chromium with JavaScript on', () => {
  test('the corpus reached the documents: vector titles, derived slugs, a page title escaped exactly once', { timeout: 60_000 }, async () => {
    assert.ok(XSS_VECTORS.length >= 60);
    assert.ok(documents.length >= XSS_VECTORS.length - refusedTitles.length + 3);
    assert.ok(refusedTitles.every((title) => title.includes('\0')), `refused titles: ${refusedTitles.map((title) => JSON.stringify(title)).join(', ')}`);
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

  test('every vector page, pond index, landing and legal page is served with a policy that allows no script', { timeout: 120_000 }, async () => {
    for (const path of documents) {
      const response = await fetch(`${setup.instance.baseUrl}${path}`);
      assert.equal(response.status, 200, path);
      expectScriptlessPolicy(path, response.headers.get('content-security-policy') ?? '');
      await response.arrayBuffer();
    }
  });

  test('every vector page, pond index, landing and legal page: nothing runs with the CSP bypassed (sanitizing alone)', { timeout: 300_000 }, async () => {
    await checkWithReaders(documents, expectInert, { bypassCSP: true });
  });

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

  test('a link title holding a tag the layout rewrites (<pre>, <table>, a task box) stays inside its attribute', { timeout: 60_000 }, async () => {
    const pondId = await createPond(setup.admin, 'Attribute trap', 'attribute-trap');
    await grantPublic(setup.admin, pondId, { type: 'pond' });
    const titles = new Map<string, string>();
    for (const [slug, tag] of [['pre', '<pre>'], ['table', '<table>'], ['task', '<input type="checkbox" disabled>']] as const) {
      const title = `${tag}<img src=x onerror=alert(1)>`;
      await createPage(setup.admin, pondId, { title: `Trap ${slug}`, slug, markdown: `A [link](/ '${title}') here.` });
      titles.set(`/attribute-trap/${slug}`, title);
    }
    // Without the CSP: the sanitized body and the layout alone must keep the title an attribute.
    const reader = await guardedReader({ bypassCSP: true });
    try {
      for (const [path, title] of titles) {
        await expectInert(reader, path);
        assert.equal(await reader.page.locator('.doc-body a').first().getAttribute('title'), title, `${path}: the title is one attribute, intact`);
      }
    } finally {
      await reader.close();
    }
  });

  test('inert input that reads like a script URL is published all the same', async () => {
    const pondId = await createPond(setup.admin, 'Publishable traps', 'publishable-traps');
    await grantPublic(setup.admin, pondId, { type: 'pond' });
    for (const [slug, markdown] of Object.entries(PUBLISHABLE_TRAPS)) {
      await createPage(setup.admin, pondId, { title: slug, slug, markdown });
      const response = await fetch(`${setup.instance.baseUrl}/publishable-traps/${slug}`);
      assert.equal(response.status, 200, `${slug}: published`);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/, `${slug}: the generated document, not a fallback`);
    }
  });

  test('every feed: opened as a document, parsed as XML, its entries rendered without a CSP: nothing runs', { timeout: 300_000 }, async () => {
    assert.ok(feeds.size > XSS_VECTORS.length / 2);
    await checkWithReaders(feeds, (reader, [url, titles]) => expectFeedInert(reader, url, titles));
  });

  test('the instance name: every vector that fits, in the landing page (its built-in welcome names it) and the header', { timeout: 300_000 }, async () => {
    // Without a landing text of its own, `/` shows the welcome, whose Markdown holds the instance name.
    await patchSettings(setup.admin, { 'home.content': '' });
    const reader = await guardedReader({ bypassCSP: true });
    let tried = 0;
    try {
      for (const { payload } of XSS_VECTORS) {
        const name = payload.trim();
        if (name.length === 0 || name.length > NAME_MAX || name.includes('\0')) continue;
        tried++;
        // The settings change drops the landing document in its transaction: the next visitor gets a fresh one.
        await patchSettings(setup.admin, { 'instance.name': name });
        await expectInert(reader, '/');
        // Whitespace aside (Markdown turns a tab into a space), the name reads literally.
        assert.equal(flat(await reader.page.locator('.brand').textContent()), flat(name), 'the instance name reads literally in the header');
        assert.equal(flat(await reader.page.getByRole('heading', { level: 1 }).textContent()), flat(`Welcome to ${name}`), 'and in the welcome');
        // A document title also drops control characters.
        assert.equal((await reader.page.title()).replace(NOT_XML, ''), flat(name).replace(NOT_XML, ''), 'and in the document title');
      }
    } finally {
      await reader.close();
    }
    assert.ok(tried > XSS_VECTORS.length / 2, `${tried} names tried`);
  });
});
