/**
 * `npm run bench:pipeline` — the save-time render of one page.
 *
 * A 5,000-word page with headings, lists, tables, 200 wikilinks and 5 transclusions:
 * Markdown → document; document → HTML + Markdown + extraction (what every save does);
 * Yjs → document → HTML (what the collaboration server does on save). Medians of 50 runs
 * taken in alternation,
 * against a plain `remark-parse → remark-rehype → rehype-stringify` of the same Markdown.
 * Target: the full save-time render ≤ 30 ms and ≤ 2× plain.
 */
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { measureAlternating } from './timing.ts';
import { wordPageMarkdown } from './wordPage.ts';
import { documentToHtml, documentToMarkdown, documentToYjsUpdate, extract, markdownToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';

const markdown = wordPageMarkdown(5000);
const plain = unified().use(remarkParse).use(remarkRehype).use(rehypeStringify);
const document = markdownToDocument(markdown);
const update = documentToYjsUpdate(document);
const resolveLink = (slug: string) => (slug.endsWith('7') ? null : { href: `/p/${slug}` });
const saveRender = (doc: typeof document) => {
  documentToHtml(doc, { resolveLink });
  documentToMarkdown(doc);
  extract(doc);
};

const timings = await measureAlternating(
  {
    baseline: async () => plain.processSync(markdown).toString(),
    parse: async () => markdownToDocument(markdown),
    save: async () => saveRender(document),
    fromYjs: async () => saveRender(yjsUpdateToDocument(update)),
    yjsToHtml: async () => documentToHtml(yjsUpdateToDocument(update), { resolveLink }),
  },
  { runs: 50 },
);
const [baseline, parse, save, fromYjs, yjsToHtml] = [timings.baseline, timings.parse, timings.save, timings.fromYjs, timings.yjsToHtml].map((timing) => timing.median) as [number, number, number, number, number];

const stats = extract(document);
const format = (value: number) => value.toFixed(2).padStart(7);
console.log(`bench:pipeline — ${stats.wordCount} words, ${stats.links.length} distinct wikilinks, ${stats.transclusions.length} transclusions, ${markdown.length} characters`);
console.log(`  plain remark → rehype → stringify          ${format(baseline)} ms`);
console.log(`  Markdown → document                         ${format(parse)} ms   ${(parse / baseline).toFixed(2)}×`);
console.log(`  save render: document → HTML + MD + extract ${format(save)} ms   ${(save / baseline).toFixed(2)}×`);
console.log(`  collab save: Yjs → document → HTML + MD + extract ${format(fromYjs)} ms   ${(fromYjs / baseline).toFixed(2)}×`);
console.log(`  Yjs → HTML                                  ${format(yjsToHtml)} ms   ${(yjsToHtml / baseline).toFixed(2)}×`);
const met = fromYjs <= 30 && fromYjs / baseline <= 2;
console.log(`  target (collab save): ≤ 30 ms and ≤ 2× plain → ${met ? 'met' : 'MISSED'}`);
