/**
 * The schema's own HTML (what the editor renders into the app's DOM, and reads back on paste):
 * content never sets an element's id, only an `h-` heading id, and a class only as the end of
 * `dt-style-…`. Node specs' toDOM needs no DOM, so this runs in Node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONContent } from '@tiptap/core';
import { fromHtml } from 'hast-util-from-html';
import { documentSchema } from './documentSchema.ts';

function toDom(json: JSONContent): unknown {
  const node = documentSchema.nodeFromJSON(json);
  const toDOM = node.type.spec.toDOM;
  assert.ok(toDOM);
  return toDOM(node);
}

describe('documentSchema: HTML the editor renders', () => {
  it('renders a heading id behind the h- prefix, and none without an id', () => {
    assert.deepEqual(toDom({ type: 'heading', attrs: { level: 2, id: 'main' }, content: [{ type: 'text', text: 'x' }] }), ['h2', { id: 'h-main' }, 0]);
    assert.deepEqual(toDom({ type: 'heading', attrs: { level: 1, id: null } }), ['h1', {}, 0]);
  });

  it('puts a mention’s user id into data-id, never into the element id', () => {
    assert.deepEqual(toDom({ type: 'mention', attrs: { id: 'app', label: 'Ada' } }), ['span', { label: 'Ada', 'data-mention': '', 'data-id': 'app' }, '@Ada']);
  });

  it('builds a section class only from word characters behind dt-style-', () => {
    assert.deepEqual(toDom({ type: 'section', attrs: { pluginId: 'a b', styleId: 'x" main' }, content: [{ type: 'paragraph' }] }), [
      'section',
      { pluginId: 'a b', styleId: 'x" main', 'data-section': '', class: 'dt-style-a-b-x--main' },
      0,
    ]);
  });
});

describe('documentSchema: HTML read back (paste)', () => {
  /** The schema's parse rules read attributes through `getAttribute`; a hast element can answer that. */
  function attributeReader(html: string): { getAttribute: (name: string) => string | null } {
    const element = fromHtml(html, { fragment: true }).children[0];
    assert.ok(element?.type === 'element');
    return { getAttribute: (name) => (element.properties[name === 'data-id' ? 'dataId' : name] as string | undefined) ?? null };
  }

  it('strips the h- prefix of a heading id, keeps a foreign id as it is', () => {
    const rule = documentSchema.nodes['heading']?.spec.parseDOM?.find((candidate) => candidate.tag === 'h2');
    assert.ok(rule?.getAttrs);
    // Tiptap wraps the attribute parsers into the rule; the id parser is the one under test.
    assert.equal((rule.getAttrs(attributeReader('<h2 id="h-intro">x</h2>') as never) as { id: unknown }).id, 'intro');
    assert.equal((rule.getAttrs(attributeReader('<h2 id="elsewhere">x</h2>') as never) as { id: unknown }).id, 'elsewhere');
    // No id read: the attribute is left out and takes its default, null.
    assert.equal((rule.getAttrs(attributeReader('<h2>x</h2>') as never) as { id?: unknown }).id, undefined);
  });

  it('reads a mention’s user id from data-id', () => {
    const rule = documentSchema.nodes['mention']?.spec.parseDOM?.[0];
    assert.ok(rule?.getAttrs);
    assert.equal((rule.getAttrs(attributeReader('<span data-mention="" data-id="u-7" id="app">@Ada</span>') as never) as { id: unknown }).id, 'u-7');
  });
});
