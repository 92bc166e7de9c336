/**
 * CommonMark conformance of the document model, over the `commonmark-spec` examples.
 *
 * What "conformant" means here: an example passes when its Markdown, read into a document
 * (markdownToDocument) and rendered as a page body (documentToHtml, sanitized, as every save
 * stores it), gives the spec's HTML after normalization (testing/htmlComparison.ts, in the
 * spirit of the spec's own normalize.py: entities, quoting, attribute order, `<br />` vs
 * `<br>` and whitespace next to block boundaries do not count) with our heading ids removed
 * (`h-…`, an anchor the spec's HTML does not have). So the figure measures what survives the
 * trip through the document model, not just the parser (micromark passes the whole spec).
 *
 * The figure is over the examples whose Markdown holds no raw HTML (as plain CommonMark reads
 * it): raw HTML is shown as text on purpose, never executed. Those examples are checked by
 * the second test: they differ from the spec by that policy (and the reasons below) alone.
 *
 * Every example that does not pass is a departure listed in docs/content-fidelity.md with its
 * reasons, and the test checks each listed reason really explains the whole difference: the
 * reason's rewrite (htmlComparison.ts), applied to the spec's side (or to both sides, for the
 * document model's own forms), makes the two equal. The test fails on a difference no reason
 * explains, on a departure the document does not list (a regression), and on a listed one
 * that passes now (the document and its figure must be updated).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Root } from 'hast';
import { tests as specExamples, type CommonmarkExample } from 'commonmark-spec';
import { documentToHtml } from './html/documentToHtml.ts';
import { markdownToDocument } from './markdown/markdownToDocument.ts';
import { assertValidDocument } from './schema/documentSchema.ts';
import { hasRawHtml, referenceHtml } from './testing/commonmarkReference.ts';
import {
  canonicalHtml,
  parseHtmlFragment,
  withFlatMarks,
  withImagePolicy,
  withLanguageClassesRestricted,
  withLinksNeedingText,
  withoutHeadingIds,
  withUnsafeSchemesDropped,
  withWikilinksAsText,
} from './testing/htmlComparison.ts';

const FIDELITY_DOCUMENT = new URL('../docs/content-fidelity.md', import.meta.url);

/** The spec writes tabs as '→' so they are visible; its own runner swaps them back. */
const examples: CommonmarkExample[] = specExamples.map((example) => ({
  ...example,
  markdown: example.markdown.replaceAll('→', '\t'),
  html: example.html.replaceAll('→', '\t'),
}));

/** The reasons docs/content-fidelity.md explains, by the names it uses. */
const REASONS = [
  'raw HTML as text',
  'GFM syntax',
  'wikilink syntax',
  'image policy',
  'unsafe schemes',
  'language classes',
  'links need text',
  'flat marks',
] as const;
type Reason = (typeof REASONS)[number];

type Outcome = { kind: 'pass' } | { kind: 'departure'; reasons: Reason[] } | { kind: 'unexplained'; expected: string; actual: string };

/** Every subset of `items`, smallest first, so a departure names no more reasons than needed. */
function subsetsBySize<T>(items: readonly T[]): T[][] {
  const subsets = Array.from({ length: 2 ** items.length }, (_, mask) => items.filter((_, bit) => mask & (1 << bit)));
  return subsets.sort((a, b) => a.length - b.length);
}

/** Both sides of one example, as the spec and we render it, rewritten by reasons. */
class ExampleComparison {
  readonly #example: CommonmarkExample;
  readonly #ours: Root;
  readonly #references = new Map<string, Root>();

  constructor(example: CommonmarkExample, ours: Root) {
    this.#example = example;
    this.#ours = withoutHeadingIds(ours);
  }

  /** The spec's HTML as it would be if the reasons were the rule. */
  expected(reasons: readonly Reason[]): string {
    const gfm = reasons.includes('GFM syntax');
    const rawHtmlAsText = reasons.includes('raw HTML as text');
    let tree = gfm || rawHtmlAsText ? this.#reference(gfm, rawHtmlAsText) : parseHtmlFragment(this.#example.html);
    if (reasons.includes('image policy')) tree = withImagePolicy(tree);
    if (reasons.includes('unsafe schemes')) tree = withUnsafeSchemesDropped(tree);
    if (reasons.includes('language classes')) tree = withLanguageClassesRestricted(tree);
    if (reasons.includes('links need text')) tree = withLinksNeedingText(tree);
    return canonicalHtml(bothSidesUnder(tree, reasons));
  }

  actual(reasons: readonly Reason[]): string {
    const tree = reasons.includes('wikilink syntax') ? withWikilinksAsText(this.#ours) : this.#ours;
    return canonicalHtml(bothSidesUnder(tree, reasons));
  }

  explains(reasons: readonly Reason[]): boolean {
    return this.expected(reasons) === this.actual(reasons);
  }

  /**
   * The reasons that re-render the Markdown with the reference renderer (GFM, raw HTML as
   * text) stand in for the spec only where that renderer, as plain CommonMark, gives exactly
   * the spec's HTML (for every example of the spec it does: micromark passes the whole spec).
   */
  referenceAgreesWithSpec(): boolean {
    return canonicalHtml(this.#reference(false, false)) === canonicalHtml(parseHtmlFragment(this.#example.html));
  }

  #reference(gfm: boolean, rawHtmlAsText: boolean): Root {
    const key = `${gfm}/${rawHtmlAsText}`;
    const tree = this.#references.get(key) ?? parseHtmlFragment(referenceHtml(this.#example.markdown, { gfm, rawHtmlAsText }));
    this.#references.set(key, tree);
    return tree;
  }
}

/** The document model's own forms, into which both sides are rewritten. */
function bothSidesUnder(tree: Root, reasons: readonly Reason[]): Root {
  return reasons.includes('flat marks') ? withFlatMarks(tree) : tree;
}

function compare(example: CommonmarkExample): ExampleComparison | { threw: string } {
  try {
    const doc = markdownToDocument(example.markdown);
    assertValidDocument(doc);
    return new ExampleComparison(example, parseHtmlFragment(documentToHtml(doc)));
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** Passes, or the smallest set of reasons that explains the whole difference. */
function judge(example: CommonmarkExample): Outcome {
  const comparison = compare(example);
  if (!(comparison instanceof ExampleComparison)) return { kind: 'unexplained', expected: example.html, actual: `threw: ${comparison.threw}` };
  if (comparison.explains([])) return { kind: 'pass' };
  const expected = comparison.expected([]);
  const actual = comparison.actual([]);
  // Only reasons that change something for this example can explain its difference.
  const rerendering: readonly Reason[] = comparison.referenceAgreesWithSpec() ? [] : ['GFM syntax', 'raw HTML as text'];
  const relevant = REASONS.filter((reason) => !rerendering.includes(reason) && (comparison.expected([reason]) !== expected || comparison.actual([reason]) !== actual));
  const reasons = subsetsBySize(relevant).find((subset) => subset.length > 0 && comparison.explains(subset));
  return reasons ? { kind: 'departure', reasons } : { kind: 'unexplained', expected, actual };
}

function describeUnexplained(example: CommonmarkExample, outcome: Extract<Outcome, { kind: 'unexplained' }>): string {
  return `#${example.number} (${example.section}) ${JSON.stringify(example.markdown)}\n    expected ${outcome.expected}\n    actual   ${outcome.actual}`;
}

/** The row docs/content-fidelity.md lists a departure with. */
function departureRow(example: CommonmarkExample, reasons: readonly Reason[]): string {
  return `| #${example.number} | ${example.section} | ${reasons.join(' + ')} |`;
}

interface DocumentedConformance {
  passed: number;
  total: number;
  /** Example number → its reasons, joined with ' + '. */
  departures: Map<number, string>;
}

/** The figure line and the departure table of docs/content-fidelity.md. */
function documentedConformance(): DocumentedConformance {
  const text = readFileSync(FIDELITY_DOCUMENT, 'utf8');
  const figure = /^CommonMark conformance: (\d+)\/(\d+) \(/m.exec(text);
  assert.ok(figure, 'docs/content-fidelity.md states the figure as "CommonMark conformance: <passed>/<total> (…)"');
  const departures = new Map<number, string>();
  for (const [, number, reasons] of text.matchAll(/^\| #(\d+) \| [^|]+ \| ([^|]+?) \|$/gm)) departures.set(Number(number), reasons ?? '');
  return { passed: Number(figure[1]), total: Number(figure[2]), departures };
}

const percent = (passed: number, total: number): string => ((100 * passed) / total).toFixed(1);

test('CommonMark conformance over the spec examples without raw HTML: the figure and every departure as documented', (t) => {
  const considered = examples.filter((example) => !hasRawHtml(example.markdown));
  const outcomes = considered.map((example) => ({ example, outcome: judge(example) }));
  const passed = outcomes.filter(({ outcome }) => outcome.kind === 'pass').length;
  t.diagnostic(`CommonMark conformance: ${passed}/${considered.length} (${percent(passed, considered.length)} %), spec ${examples.length} examples, ${examples.length - considered.length} with raw HTML left out`);

  const unexplained = outcomes.flatMap(({ example, outcome }) => (outcome.kind === 'unexplained' ? [describeUnexplained(example, outcome)] : []));
  for (const line of unexplained) t.diagnostic(line);
  assert.deepEqual(unexplained, [], 'every difference from the spec is explained by reasons of docs/content-fidelity.md');

  const departures = outcomes.flatMap(({ example, outcome }) => (outcome.kind === 'departure' ? [{ example, reasons: outcome.reasons }] : []));
  const byReasons = new Map<string, number[]>();
  for (const { example, reasons } of departures) byReasons.set(reasons.join(' + '), [...(byReasons.get(reasons.join(' + ')) ?? []), example.number]);
  for (const [reasons, numbers] of [...byReasons].sort((a, b) => b[1].length - a[1].length)) t.diagnostic(`  ${numbers.length} × ${reasons}: #${numbers.join(', #')}`);

  const documented = documentedConformance();
  const undocumented = departures.filter(({ example, reasons }) => documented.departures.get(example.number) !== reasons.join(' + '));
  assert.deepEqual(undocumented.map(({ example, reasons }) => departureRow(example, reasons)), [], 'departures not listed (with these reasons) in docs/content-fidelity.md: a regression, or a change to document');
  const failing = new Set(departures.map(({ example }) => example.number));
  const nowPassing = [...documented.departures.keys()].filter((number) => !failing.has(number));
  assert.deepEqual(nowPassing, [], 'listed departures that pass now: take them out of docs/content-fidelity.md and raise the figure');
  assert.deepEqual({ passed, total: considered.length }, { passed: documented.passed, total: documented.total }, 'the figure stated in docs/content-fidelity.md');
});

test('CommonMark spec examples with raw HTML show it as text, and differ from the spec by that and documented reasons only', (t) => {
  const withRawHtml = examples.filter((example) => hasRawHtml(example.markdown));
  assert.equal(withRawHtml.length, 72, 'spec 0.31.2 has 72 examples with raw HTML');
  const unexplained: string[] = [];
  const byReasons = new Map<string, number>();
  for (const example of withRawHtml) {
    const outcome = judge(example);
    if (outcome.kind === 'unexplained') unexplained.push(describeUnexplained(example, outcome));
    else assert.ok(outcome.kind === 'departure' && outcome.reasons.includes('raw HTML as text'), `#${example.number} shows its raw HTML as text`);
    if (outcome.kind === 'departure') byReasons.set(outcome.reasons.join(' + '), (byReasons.get(outcome.reasons.join(' + ')) ?? 0) + 1);
  }
  t.diagnostic(`CommonMark examples with raw HTML: ${[...byReasons].map(([reasons, count]) => `${count} × ${reasons}`).join(', ')}`);
  assert.deepEqual(unexplained, []);
});

test('the conformance check is not vacuous: a wrong rendering is neither a pass nor explained', () => {
  const example = examples.find((candidate) => candidate.markdown === '*foo bar*\n');
  assert.ok(example);
  assert.deepEqual(judge(example), { kind: 'pass' });
  assert.equal(judge({ ...example, html: '<p><strong>foo bar</strong></p>\n' }).kind, 'unexplained');
  assert.deepEqual(judge({ ...example, markdown: '[](/x)\n', html: '<p><a href="/x"></a></p>\n' }), { kind: 'departure', reasons: ['links need text'] });
});
