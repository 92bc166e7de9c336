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
import { documentToHtml, documentToMarkdown, documentToYjsUpdate, extract, markdownToDocument, yjsUpdateToDocument } from '../../content-pipeline/index.ts';

const WORDS = ['teich', 'dorf', 'wasser', 'ente', 'schilf', 'brücke', 'wiese', 'frosch', 'libelle', 'ufer', 'seerose', 'karpfen'];

/** A deterministic page: sections of prose with wikilinks, lists and a table, 5 transclusions. */
function buildPage(): string {
  const lines: string[] = ['# Der Dorfteich', ''];
  let words = 0;
  let links = 0;
  let section = 0;
  while (words < 5000) {
    section += 1;
    lines.push(`## Abschnitt ${section}`, '');
    for (let paragraph = 0; paragraph < 3; paragraph += 1) {
      const sentence: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        const word = WORDS[(section * 7 + paragraph * 13 + i) % WORDS.length]!;
        if (i % 12 === 5 && links < 200) {
          sentence.push(`[[seite-${links}|${word}]]`);
          links += 1;
        } else sentence.push(i % 17 === 3 ? `**${word}**` : word);
      }
      words += sentence.length;
      lines.push(`${sentence.join(' ')}.`, '');
    }
    lines.push('- erstens mit _Betonung_', '- zweitens', '  - verschachtelt', '');
    if (section % 3 === 0) lines.push('| Art | Anzahl |', '| --- | ---: |', '| Ente | 12 |', '| Frosch | 40 |', '');
    if (section % 5 === 0 && section <= 25) lines.push(`![[eingebettet-${section / 5}]]`, '');
  }
  return lines.join('\n');
}

const markdown = buildPage();
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
