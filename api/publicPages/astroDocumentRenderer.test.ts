/**
 * The public document renderer through the built site: every kind of document, escaping of
 * every printed text, the head's links and meta tags, contents, children and backlinks,
 * German labels, byte-identical output, the static-document check, and its failures.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { HOSTILE, commentedPageModel, homeModel, hostilePageModel, legalModel, pondIndexModel, richPageModel } from '../testing/publicDocumentModels.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { assertStaticDocument, createPublicDocumentRenderer, renderPublicDocumentHtml } from './astroDocumentRenderer.ts';
import type { PublicDocumentModel } from './publicDocumentModel.ts';

/** The hostile string as it must appear in text and in attribute values. */
const HOSTILE_IN_TEXT = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;';
const HOSTILE_IN_ATTRIBUTE = '&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;';

function section(html: string, startMarker: string, endMarker: string): string {
  const start = html.indexOf(startMarker);
  assert.notEqual(start, -1, `${startMarker} is in the document`);
  const end = html.indexOf(endMarker, start);
  return html.slice(start, end === -1 ? undefined : end);
}

function hrefs(fragment: string): string[] {
  return [...fragment.matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => match[1] ?? '');
}

describe('renderPublicDocumentHtml', () => {
  before(async () => {
    await ensureSiteBuilt();
  });

  test('a page: head links and meta, breadcrumbs, contents, body, children, backlinks, time, footer', async () => {
    const model = richPageModel();
    const html = await renderPublicDocumentHtml(model);
    assert.match(html, /^<!DOCTYPE html><html lang="en">/);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /http-equiv/i);
    assert.doesNotMatch(html, /\/_astro\//, 'no bundled stylesheet or script of Astro');
    assert.match(html, /<title>Pond maintenance · Field guide<\/title>/);
    assert.match(html, /<meta name="description" content="How we look after the village pond: water quality, equipment and the yearly checklist.">/);
    assert.match(html, /<link rel="canonical" href="https:\/\/wiki.example.org\/field-guide\/pond-maintenance">/);
    assert.match(html, /<link rel="alternate" type="application\/atom\+xml" title="Field guide: recent changes" href="https:\/\/wiki.example.org\/api\/v1\/public\/field-guide\/feed.xml">/);
    assert.match(html, /<link rel="alternate" type="application\/atom\+xml" title="Pond maintenance: history" href="https:\/\/wiki.example.org\/api\/v1\/public\/field-guide\/pond-maintenance\/feed.xml">/);
    assert.match(html, /<meta property="og:title" content="Pond maintenance">/);
    assert.match(html, /<meta property="og:description" content="How we look after/);
    assert.match(html, /<meta property="og:url" content="https:\/\/wiki.example.org\/field-guide\/pond-maintenance">/);
    assert.match(html, /<meta property="og:type" content="article">/);
    assert.match(html, /<meta property="og:site_name" content="Village Wiki">/);

    // Fonts: the pond's faces from our origin, the variables after the stylesheet's defaults.
    assert.match(html, /@font-face\{font-family:'Inter';font-style:normal;font-weight:400;font-display:swap;src:url\(\/assets\/fonts\/inter\/[\d.]+\/inter-latin-400-normal\.woff2\)/);
    assert.match(html, /src:url\(\/assets\/fonts\/jetbrains-mono\/[\d.]+\/jetbrains-mono-latin-400-normal\.woff2\)/);
    assert.ok(html.lastIndexOf('--font-body:Inter') > html.indexOf('--font-body:'), 'the pond font variables come last');
    assert.match(html, /<link rel="preload" href="\/assets\/fonts\/inter\/[\d.]+\/inter-latin-400-normal\.woff2" as="font" type="font\/woff2" crossorigin="anonymous">/);

    const breadcrumbs = section(html, '<nav class="breadcrumbs" aria-label="Breadcrumbs">', '</nav>');
    assert.deepEqual(hrefs(breadcrumbs), ['/field-guide', '/field-guide/care-and-upkeep']);
    assert.match(breadcrumbs, /<ol>/);
    assert.match(breadcrumbs, /<li aria-current="page">Pond maintenance<\/li>/);

    const contents = section(html, '<nav class="doc-toc"', '</nav>');
    assert.match(contents, />Contents</);
    assert.deepEqual(hrefs(contents), model.outline.map((entry) => `#${entry.id}`));
    assert.match(contents, /<li class="toc-depth-1"><a href="#h-equipment">Equipment<\/a>/);
    for (const entry of model.outline) assert.match(html, new RegExp(`<h${entry.level} id="${entry.id}">`), `heading ${entry.id} is in the body`);

    const children = section(html, 'id="children-heading"', '</section>');
    assert.match(children, />Pages below</);
    assert.deepEqual(hrefs(children), model.children.map((child) => child.href));
    const backlinks = section(html, 'id="backlinks-heading"', '</section>');
    assert.match(backlinks, />Linked from</);
    assert.deepEqual(hrefs(backlinks), model.backlinks.map((link) => link.href));

    assert.match(html, /Last updated on <time datetime="2025-03-05T14:03:27.000Z">March 5, 2025 at 2:03 PM UTC<\/time>/);
    const footer = section(html, '<footer class="site-footer">', '</footer>');
    assert.deepEqual(hrefs(footer), ['/legal/imprint', '/legal/privacy', '/login']);
    assert.match(footer, />Imprint<\/a>.*>Privacy<\/a>.*>Sign in<\/a>/s);
    assert.match(html, /<a class="skip-link" href="#main">Skip to content<\/a>/);
    assert.match(html, /<a class="brand" href="\/">.*Village Wiki<\/span><\/a>/s);
    assert.match(html, /<a class="pond-link" href="\/field-guide">Field guide<\/a>/);

    // The body as readers get it: scrollers reachable by keyboard, task boxes with their state in words.
    assert.match(html, /<pre tabindex="0"><code class="language-ts">/);
    assert.match(html, /<table tabindex="0">/);
    assert.doesNotMatch(html, /<input/);
    assert.equal(html.match(/<span class="visually-hidden">Done: <\/span>/g)?.length, 2);
    assert.equal(html.match(/<span class="visually-hidden">To do: <\/span>/g)?.length, 2);
    assert.match(html, /<div class="dt-transclusion" data-slug="brook-trout" data-dt-title="Brook trout">/);
  });

  test('every printed text comes out escaped: title, description, instance and pond name, breadcrumbs, contents, lists, feed titles', async () => {
    const html = await renderPublicDocumentHtml(hostilePageModel());
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /alert\(1\)<\//);
    assert.ok(html.includes(`<title>Title ${HOSTILE_IN_TEXT} · Pond ${HOSTILE_IN_TEXT}</title>`));
    for (const attribute of [
      `<meta name="description" content="Description ${HOSTILE_IN_ATTRIBUTE}">`,
      `<meta property="og:title" content="Title ${HOSTILE_IN_ATTRIBUTE}">`,
      `<meta property="og:description" content="Description ${HOSTILE_IN_ATTRIBUTE}">`,
      `<meta property="og:site_name" content="Wiki ${HOSTILE_IN_ATTRIBUTE}">`,
      `<link rel="alternate" type="application/atom+xml" title="Feed ${HOSTILE_IN_ATTRIBUTE}"`,
    ]) {
      assert.ok(html.includes(attribute), `escaped: ${attribute}`);
    }
    for (const text of [
      `<span>Wiki ${HOSTILE_IN_TEXT}</span>`,
      `>Pond ${HOSTILE_IN_TEXT}</a>`,
      `>Crumb ${HOSTILE_IN_TEXT}</a>`,
      `<li aria-current="page">Title ${HOSTILE_IN_TEXT}</li>`,
      `<h1 class="doc-title">Title ${HOSTILE_IN_TEXT}</h1>`,
      `<a href="#h-one">Heading ${HOSTILE_IN_TEXT}</a>`,
      `>Child ${HOSTILE_IN_TEXT}</a>`,
      `>Backlink ${HOSTILE_IN_TEXT}</a>`,
      `<p>Wiki ${HOSTILE_IN_TEXT} · Published with Dorfteich</p>`,
    ]) {
      assert.ok(html.includes(text), `escaped: ${text}`);
    }
    // The canonical URL's quote and ampersand never end the attribute.
    assert.match(html, /<link rel="canonical" href="https:\/\/wiki.example.org\/field-guide\/page\?x=%3Cscript%3Ealert\(1\)%3C%2Fscript%3E%22&#39;%26">/);
    assert.ok(HOSTILE.includes('<script>'));
  });

  test('the body rewrites touch whole tags only, never text inside an attribute value', async () => {
    const bodyHtml = '<p><a href="/x" title="<pre><table><img src=x onerror=alert(1)>">link</a></p><pre><code>x</code></pre><table><tbody><tr><td>1</td></tr></tbody></table>';
    const html = await renderPublicDocumentHtml(richPageModel({ bodyHtml }));
    assert.ok(html.includes('<a href="/x" title="<pre><table><img src=x onerror=alert(1)>">link</a>'), 'the title is untouched');
    assert.ok(html.includes('<pre tabindex="0"><code>x</code></pre><table tabindex="0"><tbody>'));
    const plain = '<p>No code, no table, no tasks.</p>';
    assert.ok((await renderPublicDocumentHtml(richPageModel({ bodyHtml: plain }))).includes(`<div class="doc-body">${plain}</div>`));
  });

  test('plugin styles are inlined in their own style element and cannot close it', async () => {
    const html = await renderPublicDocumentHtml(richPageModel({ pluginStyles: '.dt-style-chart { color: red } .x::before { content: "</style><script>alert(1)</script>" }' }));
    assert.match(html, /<style data-dt-plugin-styles>\.dt-style-chart \{ color: red \} \.x::before \{ content: "\\3c \/style>\\3c script>alert\(1\)\\3c \/script>" \}<\/style>/);
    assert.doesNotMatch(html, /<script/i);
    const withoutPlugins = await renderPublicDocumentHtml(richPageModel());
    assert.doesNotMatch(withoutPlugins, /data-dt-plugin-styles/);
  });

  test('the same model gives the same bytes, also while other documents render at the same time', async () => {
    const model = richPageModel();
    const first = await renderPublicDocumentHtml(model);
    const concurrent = await Promise.all([
      renderPublicDocumentHtml(model),
      renderPublicDocumentHtml(pondIndexModel()),
      renderPublicDocumentHtml(richPageModel({ title: 'Another page' })),
      renderPublicDocumentHtml(model),
    ]);
    assert.equal(concurrent[0], first);
    assert.equal(concurrent[3], first);
    assert.match(concurrent[1] ?? '', /<h1 class="doc-title">Field guide<\/h1>/);
    assert.match(concurrent[2] ?? '', /<h1 class="doc-title">Another page<\/h1>/);
    assert.notEqual(concurrent[2], first);
  });

  test('German labels and date with locale de', async () => {
    const html = await renderPublicDocumentHtml(richPageModel({ locale: 'de' }));
    assert.match(html, /^<!DOCTYPE html><html lang="de">/);
    for (const label of ['>Zum Inhalt springen<', 'aria-label="Navigationspfad"', '>Inhalt</h2>', '>Unterseiten</h2>', '>Verlinkt von</h2>', '>Impressum</a>', '>Datenschutz</a>', '>Anmelden</a>', 'Erledigt: ', 'Offen: ']) {
      assert.ok(html.includes(label), `German label ${label}`);
    }
    assert.match(html, /Zuletzt geändert am <time datetime="2025-03-05T14:03:27.000Z">5. März 2025 um 14:03 UTC<\/time>/);
    assert.match(html, /<meta property="og:locale" content="de_DE">/);
  });

  test('open comment threads: quote, authors, dates, sanitized bodies and replies, every text escaped; none without comments', async () => {
    const html = await renderPublicDocumentHtml(commentedPageModel({}, { hostile: true }));
    assert.doesNotMatch(html, /<script/i);
    const comments = section(html, '<section class="doc-comments" aria-labelledby="comments-heading">', '</section>');
    assert.match(comments, /<h2 class="related-heading" id="comments-heading">Comments<\/h2>/);
    assert.equal(comments.match(/<li class="comment-thread">/g)?.length, 2);
    assert.equal(comments.match(/<article class="comment">/g)?.length, 4);
    assert.ok(comments.includes(`<blockquote class="comment-quote"><span class="visually-hidden">About the passage: </span>Measure in the morning, before the sun warms the surface. ${HOSTILE_IN_TEXT}</blockquote>`));
    assert.ok(comments.includes(`<span class="comment-author">Ada Lindqvist ${HOSTILE_IN_TEXT}</span><time datetime="2025-03-06T09:15:00.000Z">March 6, 2025 at 9:15 AM UTC</time><span class="comment-edited">edited</span>`));
    assert.ok(comments.includes(`<span class="comment-author">Cleo Donaudampfschifffahrtsgesellschaft ${HOSTILE_IN_TEXT}</span>`));
    // The body is the comment renderer's HTML: its markup stays, typed markup is text.
    assert.ok(comments.includes('<div class="comment-body"><p>Is the <strong>north inlet</strong> still clear after the storm? &#x3C;script>alert(1)&#x3C;/script>"\'&#x26;</p></div>'));
    assert.match(comments, /<ol class="comment-replies" aria-label="Replies"><li><article class="comment"><p class="comment-meta"><span class="comment-author">Bert<\/span>/);
    assert.match(comments, /<blockquote>\n<p>checked on Monday<\/p>\n<\/blockquote>/);
    // A code block scrolls inside its box, so it is a tab stop, as in the page body.
    assert.match(comments, /<pre tabindex="0"><code>if \(readings/);
    assert.equal(comments.match(/<ol class="comment-replies"/g)?.length, 1, 'a thread without replies has no reply list');
    // Comments come after the page's own related lists.
    assert.ok(html.indexOf('id="backlinks-heading"') < html.indexOf('id="comments-heading"'));

    const german = await renderPublicDocumentHtml(commentedPageModel({ locale: 'de' }));
    for (const label of ['>Kommentare</h2>', 'Zur Textstelle: </span>', '>bearbeitet</span>', 'aria-label="Antworten"', '6. März 2025 um 09:15 UTC']) {
      assert.ok(german.includes(label), `German: ${label}`);
    }

    for (const model of [richPageModel(), richPageModel({ children: [], backlinks: [] })]) {
      const plain = await renderPublicDocumentHtml(model);
      assert.doesNotMatch(plain, /doc-comments|comments-heading|class="comment/);
    }
    assert.doesNotMatch(await renderPublicDocumentHtml(richPageModel({ children: [], backlinks: [] })), /class="doc-related"/);
  });

  test('contents only from two headings on', async () => {
    const one = await renderPublicDocumentHtml(richPageModel({ outline: [{ level: 2, text: 'Only', id: 'h-only' }] }));
    assert.doesNotMatch(one, /class="doc-toc"/);
    assert.match(one, /class="doc-frame"/);
    const none = await renderPublicDocumentHtml(richPageModel({ outline: [] }));
    assert.doesNotMatch(none, /class="doc-toc"/);
  });

  test('a pond index: its public page tree as nested lists, or the empty state', async () => {
    const html = await renderPublicDocumentHtml(pondIndexModel());
    assert.match(html, /<meta property="og:type" content="website">/);
    assert.match(html, /<title>Field guide · Village Wiki<\/title>/);
    assert.doesNotMatch(html, /class="breadcrumbs"/);
    const tree = section(html, '<ul class="pond-tree">', '</section>');
    assert.match(tree, /<li><a href="\/field-guide\/care-and-upkeep">Care and upkeep<\/a><ul><li><a href="\/field-guide\/pond-maintenance">Pond maintenance<\/a><ul><li><a href="\/field-guide\/winter-preparations">Winter preparations<\/a><\/li><\/ul><\/li>/);
    assert.equal(hrefs(tree).length, 7);
    assert.doesNotMatch(html, /Nothing in this pond is public yet/);

    const empty = await renderPublicDocumentHtml(pondIndexModel({ tree: [] }));
    assert.match(empty, /<div class="empty-state"><p>Nothing in this pond is public yet.<\/p>/);
    assert.doesNotMatch(empty, /class="pond-tree"/);
    const emptyDe = await renderPublicDocumentHtml(pondIndexModel({ tree: [], locale: 'de' }));
    assert.match(emptyDe, /In diesem Teich ist noch nichts öffentlich./);
  });

  test('landing and legal pages: same frame, no breadcrumbs, contents, children or backlinks; their own heading is the title', async () => {
    for (const model of [homeModel(), legalModel()]) {
      const html = await renderPublicDocumentHtml(model);
      assert.doesNotMatch(html, /class="breadcrumbs"|class="doc-toc"|children-heading|backlinks-heading|class="doc-meta"/);
      assert.match(html, /<footer class="site-footer">/);
      assert.doesNotMatch(html, /class="pond-link"/);
      assert.doesNotMatch(html, /@font-face/, 'site documents use system fonts: no font files');
      assert.match(html, /--font-body:system-ui/);
    }
    const home = await renderPublicDocumentHtml(homeModel());
    assert.match(home, /<title>Village Wiki<\/title>/);
    assert.equal(home.match(/<h1/g)?.length, 1, 'the landing text brings its own h1, no second one');
    assert.match(home, /<h1 id="h-welcome">Welcome to the Village Wiki<\/h1>/);
    const legal = await renderPublicDocumentHtml(legalModel());
    assert.match(legal, /<title>Imprint · Village Wiki<\/title>/);
    assert.match(legal, /<h1 class="doc-title">Imprint<\/h1>/);
  });

  test('the landing page: Sign in, Sign up while registration is open, the public ponds and recent pages, or their empty states', async () => {
    const home = await renderPublicDocumentHtml(homeModel());
    assert.match(home, /<nav class="landing-actions" aria-label="Your account"><a class="landing-action is-primary" href="\/login">Sign in<\/a><a class="landing-action" href="\/signup">Sign up<\/a><\/nav>/);
    assert.match(home, /<a href="\/field-guide">Field guide<\/a><span class="landing-meta">4 public pages<\/span>/);
    assert.match(home, /<a href="\/field-guide\/volunteer-rota">Volunteer rota<\/a>[\s\S]*?in Field guide · <time datetime="2026-05-04T09:30:00.000Z">changed May 4, 2026 at 9:30 AM UTC<\/time>/);
    const closed = await renderPublicDocumentHtml(homeModel({ locale: 'de', landing: { registrationOpen: false, ponds: [], recentPages: [] } }));
    assert.match(closed, /<html lang="de"/);
    assert.match(closed, /href="\/login">Anmelden</);
    assert.doesNotMatch(closed, /\/signup/);
    assert.match(closed, /<p class="landing-empty">Noch hat kein Teich öffentliche Seiten\.<\/p>/);
    assert.match(closed, /id="public-recent-heading"/);
    // Without a heading of its own the landing text sits under the site home's greeting.
    const plain = await renderPublicDocumentHtml(homeModel({ bodyHtml: '<p>Hello.</p>' }));
    assert.match(plain, /<h1 class="doc-title">Welcome to Village Wiki<\/h1>/);
  });

  test('a render that fails inside Astro is an error, not a document', async () => {
    const broken = { ...richPageModel(), outline: null } as unknown as PublicDocumentModel;
    const originalError = console.error;
    console.error = () => {};
    try {
      await assert.rejects(renderPublicDocumentHtml(broken), /Rendering a public document answered 500, not 200/);
    } finally {
      console.error = originalError;
    }
    // The renderer still works afterwards.
    assert.match(await renderPublicDocumentHtml(richPageModel()), /<h1 class="doc-title">Pond maintenance<\/h1>/);
  });

  test('without a model the page answers 404, and the renderer refuses that as a document', async () => {
    await assert.rejects(renderPublicDocumentHtml(null as unknown as PublicDocumentModel), /answered 404, not 200/);
  });

  test('without a built site the renderer says so (and tries again on the next call)', async () => {
    const render = createPublicDocumentRenderer('/nonexistent/site/dist/server/entry.mjs');
    await assert.rejects(render(richPageModel()), /the site is not built \(\/nonexistent\/site\/dist\/server\/entry\.mjs is missing\)/);
    await assert.rejects(render(richPageModel()), /the site is not built/);
  });
});

describe('assertStaticDocument', () => {
  test('passes script-like text in attribute values, text and style contents', () => {
    assertStaticDocument('<!DOCTYPE html><html><head><meta name="description" content="<script>alert(1)</script>"><style>.x::before{content:"<script>"}</style></head><body><p title=\'onload=x\'>&lt;script&gt; onclick=</p></body></html>');
    // The sanitizer leaves `<` unescaped inside a title: a value, not a tag and not a URL attribute.
    assertStaticDocument('<p><a title="<IMG SRC=javascript:alert(&#x27;XSS&#x27;)>" href="/x">x</a><a title=" onclick=alert(1)">y</a></p>');
    assertStaticDocument('<a href="/field-guide/javascript-basics" title="javascript: the basics">z</a>');
  });

  for (const [what, html] of [
    ['a script element', '<p>x</p><script>alert(1)</script>'],
    ['a script element in upper case', '<SCRIPT src="/x.js"></SCRIPT>'],
    ['a self-closed script', '<script/>'],
    ['an event handler attribute', '<img src="/x.png" onerror="alert(1)">'],
    ['an unquoted event handler', '<img src=/x.png onerror=alert(1)>'],
    ['an event handler after a quoted value with a >', '<a title="a > b" onclick="alert(1)">x</a>'],
    ['a javascript: URL', '<a href="javascript:alert(1)">x</a>'],
    ['a javascript: URL in capitals with spaces', '<a href=" JavaScript:alert(1)">x</a>'],
    ['a javascript: URL written with character references', '<a href="&#106;avascript&#x3A;alert(1)">x</a>'],
    ['a javascript: URL split by a tab reference', '<img src="java&Tab;script:alert(1)">'],
    ['a meta refresh or policy', '<meta http-equiv="content-security-policy" content="default-src *">'],
  ] as const) {
    test(`throws on ${what}`, () => {
      assert.throws(() => assertStaticDocument(html), /rendered public document contains/);
    });
  }
});
