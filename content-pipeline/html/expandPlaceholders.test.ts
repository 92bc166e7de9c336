import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { documentToHtml } from './documentToHtml.ts';
import { expandBySplicing, expandPlaceholders, expandPlaceholdersByTree, expandPluginBlocks, expandTransclusions, pluginBlocksInOrder, type PluginBlockRef, type TransclusionResolver } from './expandPlaceholders.ts';

const p = (text: string): JSONContent => ({ type: 'paragraph', content: [{ type: 'text', text }] });
const embed = (targetSlug: string): JSONContent => ({ type: 'transclusion', attrs: { targetSlug, displayText: null } });
const block = (pluginId: string, blockType = 'chart'): JSONContent => ({ type: 'plugin_block', attrs: { pluginId, blockType, data: {}, svgSnapshot: null } });
const render = (...content: JSONContent[]): string => documentToHtml({ type: 'doc', content });

/** A pond of rendered pages, as the serving layer would hold their cached HTML. */
function resolverFor(pages: Record<string, string>): TransclusionResolver {
  return (slug) => {
    const html = pages[slug];
    return html === undefined ? null : { html, title: slug.toUpperCase() };
  };
}

const wikilink = (slug: string): string => `<p><a href="${slug}" data-slug="${slug}" class="dt-wikilink">${slug}</a></p>`;

describe('expandTransclusions', () => {
  it('replaces a placeholder with the target body', () => {
    assert.equal(
      expandTransclusions(render(p('before'), embed('b')), resolverFor({ b: render(p('B body')) })),
      '<p>before</p><div class="dt-transclusion" data-slug="b" data-dt-title="B"><p>B body</p></div>',
    );
  });

  it('degrades a missing or unreadable target to the plain wikilink', () => {
    assert.equal(expandTransclusions(render(embed('gone')), resolverFor({})), wikilink('gone'));
  });

  it('expands two levels and degrades the third', () => {
    const pages = { b: render(p('B'), embed('c')), c: render(p('C'), embed('d')), d: render(p('D')) };
    assert.equal(
      expandTransclusions(render(embed('b')), resolverFor(pages)),
      `<div class="dt-transclusion" data-slug="b" data-dt-title="B"><p>B</p><div class="dt-transclusion" data-slug="c" data-dt-title="C"><p>C</p>${wikilink('d')}</div></div>`,
    );
  });

  it('says so in a transcluded page without text (given the note), on the tree way and the splicing way alike', () => {
    const pages = { blank: '', spaces: '  \n', text: render(p('Text')) };
    const host = render(embed('blank'), embed('spaces'), embed('text'));
    const note = '<p class="dt-transclusion-empty">This page has no text yet.</p>';
    const expected = `<div class="dt-transclusion" data-slug="blank" data-dt-title="BLANK">${note}</div><div class="dt-transclusion" data-slug="spaces" data-dt-title="SPACES">${note}</div><div class="dt-transclusion" data-slug="text" data-dt-title="TEXT"><p>Text</p></div>`;
    const options = { resolveTransclusion: resolverFor(pages), emptyNote: 'This page has no text yet.' };
    assert.equal(expandPlaceholdersByTree(host, options), expected);
    assert.equal(expandBySplicing(host, options), expected);
    // Without a note the box stays empty, as before.
    assert.equal(expandTransclusions(render(embed('blank')), resolverFor(pages)), '<div class="dt-transclusion" data-slug="blank" data-dt-title="BLANK"></div>');
  });

  it('honours a smaller maxDepth', () => {
    assert.equal(expandTransclusions(render(embed('b')), resolverFor({ b: render(p('B')) }), { maxDepth: 0 }), wikilink('b'));
  });

  it('degrades cycles, including the served page itself', () => {
    const pages = { a: render(p('A'), embed('b')), b: render(p('B'), embed('a')) };
    assert.equal(
      expandTransclusions(pages.a, resolverFor(pages), { selfSlug: 'a' }),
      `<p>A</p><div class="dt-transclusion" data-slug="b" data-dt-title="B"><p>B</p>${wikilink('a')}</div>`,
    );
  });

  it('sanitizes a target body that did not come from documentToHtml', () => {
    assert.equal(
      expandTransclusions(render(embed('b')), resolverFor({ b: '<p onclick="x">B<script>alert(1)</script></p><iframe src="x"></iframe>' })),
      '<div class="dt-transclusion" data-slug="b" data-dt-title="B"><p>B</p></div>',
    );
  });

  it('keeps heading ids unique across transcluded bodies', () => {
    const heading: JSONContent = { type: 'heading', attrs: { level: 2, id: 'intro' }, content: [{ type: 'text', text: 'Intro' }] };
    assert.equal(
      expandTransclusions(render(heading, embed('b')), resolverFor({ b: render(heading) })),
      '<h2 id="h-intro">Intro</h2><div class="dt-transclusion" data-slug="b" data-dt-title="B"><h2 id="h-intro-2">Intro</h2></div>',
    );
  });

  it('keeps only h- heading ids and no other id or name in a transcluded body (a body cached before the prefix, or forged)', () => {
    assert.equal(
      expandTransclusions(render(embed('b')), resolverFor({ b: '<h2 id="main">Old</h2><h3 id="h-ok">New</h3><p id="app">x</p><a name="login" id="h-x" href="#h-ok">y</a>' })),
      '<div class="dt-transclusion" data-slug="b" data-dt-title="B"><h2>Old</h2><h3 id="h-ok">New</h3><p>x</p><a href="#h-ok">y</a></div>',
    );
  });

  it('works on hast too', async () => {
    const { fromHtml } = await import('hast-util-from-html');
    const tree = expandTransclusions(fromHtml(render(embed('gone')), { fragment: true }), resolverFor({}));
    assert.equal(tree.type, 'root');
  });
});

describe('expandPluginBlocks', () => {
  const html = render(block('charts'));

  it('prefers the sanitized SVG snapshot', () => {
    assert.equal(expandPluginBlocks(html, () => ({ svgSnapshot: '<svg onload="x"><circle r="1"/></svg>', fallbackText: 'no' })), '<div class="dt-plugin"><svg><circle r="1"></circle></svg></div>');
  });

  it('falls back to the fallback text when the snapshot is unusable', () => {
    assert.equal(expandPluginBlocks(html, () => ({ svgSnapshot: '<script>x</script>', fallbackText: 'A <chart>' })), '<div class="dt-plugin dt-plugin-fallback"><p>A &#x3C;chart></p></div>');
  });

  it('falls back to the fallback image, with a safe URL only', () => {
    assert.equal(expandPluginBlocks(html, () => ({ fallbackImage: { src: '/plugins/charts/1.0.0/fallback.png', alt: 'Chart' } })), '<div class="dt-plugin dt-plugin-fallback"><img src="/plugins/charts/1.0.0/fallback.png" alt="Chart" loading="lazy"></div>');
    assert.equal(expandPluginBlocks(html, () => ({ fallbackImage: { src: 'javascript:alert(1)' } })), '<div class="dt-plugin dt-plugin-empty"><p>[plugin content]</p></div>');
  });

  it('shows the literal marker without a resolver or a static form', () => {
    assert.equal(expandPluginBlocks(html), '<div class="dt-plugin dt-plugin-empty"><p>[plugin content]</p></div>');
    assert.equal(expandPluginBlocks(html, () => null), '<div class="dt-plugin dt-plugin-empty"><p>[plugin content]</p></div>');
  });

  it('passes plugin, type, index and source page to the resolver', () => {
    const seen: PluginBlockRef[] = [];
    expandPlaceholders(render(block('one', 'a'), embed('b'), block('two', 'b/c')), {
      resolveTransclusion: resolverFor({ b: render(block('three')), c: '' }),
      resolvePluginBlock: (ref) => (seen.push(ref), null),
    });
    assert.deepEqual(seen, [
      { pluginId: 'one', blockType: 'a', index: 0, sourceSlug: null },
      { pluginId: 'three', blockType: 'chart', index: 0, sourceSlug: 'b' },
      { pluginId: 'two', blockType: 'b/c', index: 1, sourceSlug: null },
    ]);
  });
});

describe('pluginBlocksInOrder', () => {
  it('lists plugin blocks in the order of their placeholder indexes', () => {
    const doc: JSONContent = { type: 'doc', content: [block('a'), { type: 'section', attrs: { pluginId: 's', styleId: 't' }, content: [block('b')] }, block('c')] };
    assert.deepEqual(pluginBlocksInOrder(doc).map((node) => node.attrs?.pluginId), ['a', 'b', 'c']);
  });
});

describe('expandPlaceholders', () => {
  it('expands plugin blocks inside transcluded bodies', () => {
    assert.equal(
      expandPlaceholders(render(embed('b')), { resolveTransclusion: resolverFor({ b: render(block('x')) }), resolvePluginBlock: () => ({ svgSnapshot: '<svg><g/></svg>' }) }),
      '<div class="dt-transclusion" data-slug="b" data-dt-title="B"><div class="dt-plugin"><svg><g></g></svg></div></div>',
    );
  });
});

describe('expandPlaceholders without parsing the served body', () => {
  const heading = (text: string, level = 2): JSONContent => ({ type: 'heading', attrs: { level }, content: [{ type: 'text', text }] });
  const rich = (...extra: JSONContent[]): string =>
    render(
      heading('Intro'),
      p('Text with <b>markup</b> & "quotes" — data-dt-plugin and <div data-dt-transclusion="x"> as text.'),
      { type: 'codeBlock', attrs: { language: null }, content: [{ type: 'text', text: '<h2 id="h-intro">not a heading</h2>\n<div data-dt-plugin="a/b">' }] },
      ...extra,
      heading('Intro'),
      heading('Details', 3),
    );
  const pages: Record<string, string> = {
    b: render(heading('Intro'), p('B body'), embed('c'), block('chart'), heading('Details', 3)),
    c: render(heading('Intro'), p('C body'), embed('d'), embed('b')),
    d: render(p('D')),
    self: render(embed('self')),
    forged: '<h2 id="h-intro" onclick="x">X</h2><script>alert(1)</script><div data-dt-transclusion="d"><p>nested</p></div>',
  };
  const cases: [string, string, { selfSlug?: string; maxDepth?: number }][] = [
    ['a transclusion between headings of the same names', rich(embed('b')), {}],
    ['two transclusions of the same page and a missing one', rich(embed('b'), p('between'), embed('b'), embed('gone')), {}],
    ['plugin blocks on the page and in transcluded bodies', rich(block('chart'), embed('b'), block('map', 'area')), {}],
    ['the served page transcluding itself', render(p('S'), embed('self')), { selfSlug: 'self' }],
    ['a cycle through the served page', render(embed('c')), { selfSlug: 'b' }],
    ['nesting limited to 0 and 1', rich(embed('b')), { maxDepth: 0 }],
    ['nesting limited to 1', rich(embed('b')), { maxDepth: 1 }],
    ['a forged target body', render(embed('forged'), heading('Intro')), {}],
  ];
  for (const [name, html, options] of cases) {
    it(`gives the same HTML as the tree: ${name}`, () => {
      const resolvePluginBlock = (ref: PluginBlockRef) => (ref.blockType === 'area' ? { fallbackText: `Area ${ref.index} <of> ${ref.sourceSlug}` } : null);
      const both = { ...options, resolveTransclusion: resolverFor(pages), resolvePluginBlock };
      const spliced = expandBySplicing(html, both);
      assert.ok(spliced !== null, 'documentToHtml output is spliced, not parsed');
      assert.equal(expandPlaceholders(html, both), spliced);
      assert.equal(spliced, expandPlaceholdersByTree(html, both));
      assert.doesNotMatch(spliced, /<div data-dt-(?:transclusion|plugin)=|<script/, "no placeholder left, nothing that runs");
    });
  }

  it('goes the tree way for markup documentToHtml does not write', () => {
    const odd = '<div data-dt-transclusion="b" class="x"><p>b</p></div><div data-dt-transclusion="b"><div>nested</div></div>';
    const options = { resolveTransclusion: resolverFor(pages) };
    assert.equal(expandBySplicing(odd, options), null);
    assert.equal(expandPlaceholders(odd, options), expandPlaceholdersByTree(odd, options));
    assert.equal(expandPlaceholders(odd, options).split('class="dt-transclusion"').length - 1, 2 + 2, 'both expanded (with the nested page c each)');
  });
});
