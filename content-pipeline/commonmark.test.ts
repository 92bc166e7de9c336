/**
 * CommonMark conformance: every example of the `commonmark-spec` package goes Markdown →
 * document → HTML and is compared with the spec's HTML after normalization
 * (testing/htmlComparison.ts). An example that differs is classified by the smallest set of
 * documented reasons that explains the whole difference:
 * - heading ids (policy): our headings carry ids derived from their text;
 * - sanitizing (policy): link titles are not rendered, hrefs with unsafe schemes or empty ones
 *   are dropped, an empty link shows its URL, code language classes are restricted;
 * - image policy: images only come from uploads, any other image becomes a link (alt as text);
 * - raw HTML escaped (policy): raw HTML is shown as text (the reader's remarkRawHtmlAsText);
 * - GFM syntax (dialect): our reader also parses GFM (autolink literals, strikethrough, …);
 * - wikilink syntax (dialect): `[[x]]` is a wikilink and a `![[x]]` line a transclusion;
 * - flat marks (document model): ProseMirror marks are a set per character, so their nesting
 *   is canonical, nested emphasis of one kind is one emphasis, hard breaks carry no marks;
 * - containers hold paragraphs (document model): an empty blockquote, list item or document
 *   holds an empty paragraph, and a list item starts with a paragraph, so an item of a loose
 *   list that starts with another block has an empty one in front. (Lists are tight or loose
 *   as in CommonMark; a tight list's empty paragraphs render as nothing.)
 * Anything else is an unclassified failure, and the test fails on any.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Root } from 'hast';
import { tests as specExamples, type CommonmarkExample } from 'commonmark-spec';
import { documentToHtml } from './html/documentToHtml.ts';
import { markdownToDocument } from './markdown/markdownToDocument.ts';
import { assertValidDocument } from './schema/documentSchema.ts';
import { referenceHtml } from './testing/commonmarkReference.ts';
import {
  canonicalHtml,
  parseHtmlFragment,
  withContainersHoldingParagraphs,
  withFlatMarks,
  withImagePolicy,
  withoutHeadingIds,
  withSanitizingPolicy,
  withWikilinksAsText,
} from './testing/htmlComparison.ts';

/** The spec writes tabs as '→' so they are visible; its own runner swaps them back. */
const examples: CommonmarkExample[] = specExamples.map((example) => ({
  ...example,
  markdown: example.markdown.replaceAll('→', '\t'),
  html: example.html.replaceAll('→', '\t'),
}));

const REASONS = [
  'heading ids',
  'sanitizing',
  'image policy',
  'raw HTML escaped',
  'GFM syntax',
  'wikilink syntax',
  'flat marks',
  'containers hold paragraphs',
] as const;
type Reason = (typeof REASONS)[number];

type Outcome = { kind: 'pass' } | { kind: 'classified'; reasons: Reason[] } | { kind: 'unclassified'; expected: string; actual: string };

/** Every subset of `items`, smallest first, so a classification names no more than needed. */
function subsetsBySize<T>(items: readonly T[]): T[][] {
  const subsets = Array.from({ length: 2 ** items.length }, (_, mask) => items.filter((_, bit) => mask & (1 << bit)));
  return subsets.sort((a, b) => a.length - b.length);
}

/** Both sides of one example as our reasons would render them. */
class ExampleComparison {
  readonly #example: CommonmarkExample;
  readonly #ours: Root;
  readonly #references = new Map<string, Root>();

  constructor(example: CommonmarkExample, ours: Root) {
    this.#example = example;
    this.#ours = ours;
  }

  expected(reasons: readonly Reason[]): string {
    const gfm = reasons.includes('GFM syntax');
    const rawHtmlAsText = reasons.includes('raw HTML escaped');
    let tree = gfm || rawHtmlAsText ? this.#reference(gfm, rawHtmlAsText) : parseHtmlFragment(this.#example.html);
    if (reasons.includes('image policy')) tree = withImagePolicy(tree);
    if (reasons.includes('sanitizing')) tree = withSanitizingPolicy(tree);
    return canonicalHtml(bothSidesUnder(tree, reasons));
  }

  actual(reasons: readonly Reason[]): string {
    let tree = this.#ours;
    if (reasons.includes('heading ids')) tree = withoutHeadingIds(tree);
    if (reasons.includes('wikilink syntax')) tree = withWikilinksAsText(tree);
    return canonicalHtml(bothSidesUnder(tree, reasons));
  }

  #reference(gfm: boolean, rawHtmlAsText: boolean): Root {
    const key = `${gfm}/${rawHtmlAsText}`;
    const tree = this.#references.get(key) ?? parseHtmlFragment(referenceHtml(this.#example.markdown, { gfm, rawHtmlAsText }));
    this.#references.set(key, tree);
    return tree;
  }
}

/** The document-model reasons rewrite both sides into the form our model can express. */
function bothSidesUnder(tree: Root, reasons: readonly Reason[]): Root {
  let result = tree;
  if (reasons.includes('containers hold paragraphs')) result = withContainersHoldingParagraphs(result);
  if (reasons.includes('flat marks')) result = withFlatMarks(result);
  return result;
}

function judge(example: CommonmarkExample): Outcome {
  let ours: Root;
  try {
    const doc = markdownToDocument(example.markdown);
    assertValidDocument(doc);
    ours = parseHtmlFragment(documentToHtml(doc));
  } catch (error) {
    return { kind: 'unclassified', expected: example.html, actual: `threw: ${(error as Error).message}` };
  }
  const comparison = new ExampleComparison(example, ours);
  const expected = comparison.expected([]);
  const actual = comparison.actual([]);
  if (expected === actual) return { kind: 'pass' };
  // Only reasons that change something for this example can explain its difference.
  const relevant = REASONS.filter((reason) => comparison.expected([reason]) !== expected || comparison.actual([reason]) !== actual);
  const candidates = subsetsBySize(relevant);
  for (const reasons of candidates) {
    if (reasons.length > 0 && comparison.expected(reasons) === comparison.actual(reasons)) return { kind: 'classified', reasons };
  }
  return { kind: 'unclassified', expected, actual };
}

test('CommonMark spec examples: Markdown → document → HTML', (t) => {
  let passed = 0;
  const byReasons = new Map<string, number>();
  const examplesByReasons = new Map<string, number[]>();
  const unclassified: string[] = [];
  for (const example of examples) {
    const outcome = judge(example);
    if (outcome.kind === 'pass') {
      passed += 1;
    } else if (outcome.kind === 'classified') {
      const key = outcome.reasons.join(' + ');
      byReasons.set(key, (byReasons.get(key) ?? 0) + 1);
      examplesByReasons.set(key, [...(examplesByReasons.get(key) ?? []), example.number]);
    } else {
      unclassified.push(`#${example.number} (${example.section}) ${JSON.stringify(example.markdown)}\n    expected ${outcome.expected}\n    actual   ${outcome.actual}`);
    }
  }
  const classified = [...byReasons.values()].reduce((sum, count) => sum + count, 0);
  t.diagnostic(`CommonMark ${examples.length} examples: ${passed} pass exactly, ${classified} differ only by documented reasons, ${unclassified.length} unclassified`);
  // Every failing example, listed with its reason (by spec example number).
  for (const [reasons, count] of [...byReasons].sort((a, b) => b[1] - a[1])) {
    t.diagnostic(`  ${count} differ only by: ${reasons} — #${(examplesByReasons.get(reasons) ?? []).join(', #')}`);
  }
  for (const line of unclassified) t.diagnostic(line);
  assert.deepEqual(unclassified, [], 'every difference from the spec must be one of the documented reasons');
});
