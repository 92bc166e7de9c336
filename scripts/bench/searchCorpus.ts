/**
 * The corpus of `npm run bench:search`: generated pages of mixed German/English pseudo-text
 * with Zipf-distributed words, in shared ponds with labels and grants, indexed through the
 * engine's own path (`reindexLivePondPages`). Deterministic for a seed, so every run sees the
 * same words, the same pages and the same readable share.
 *
 * Pages are generated from a per-page seed, so a page's words can be generated again at any
 * time: texts are written in batches and forgotten, and the reader's document frequencies are
 * counted by regenerating the readable pages once the policy has said which they are.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { permittedPageIds } from '../../api/policies/accessPolicy.ts';
import { INDEXED_SHARP_S, reindexLivePondPages } from '../../api/search/pageSearchIndex.ts';
import { seededRandom } from '../seededRandom.ts';

export interface SearchCorpusOptions {
  pages?: number;
  ponds?: number;
  wordsPerPage?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface CorpusSentence {
  /** The words as written (display forms, not capitalised for the sentence start). */
  words: string[];
  /** Whether the reader may read the page it comes from. */
  readable: boolean;
}

export interface SearchCorpus {
  ownerId: string;
  readerId: string;
  pondIds: string[];
  /** A pond where the reader holds a pond-wide reader allow: a new unlabelled page there is readable. */
  readerPondId: string;
  pageCount: number;
  readableCount: number;
  /** Display forms in rank order (rank 0 is the most frequent). */
  vocabulary: string[];
  /** Pages (title or body) holding the folded word, over all pages / over the reader's pages. */
  documentFrequency: Map<string, number>;
  readableFrequency: Map<string, number>;
  /** Folded words that appear in vectors without being vocabulary (label names): not query material. */
  reservedWords: Set<string>;
  /** A sample of generated sentences, for phrase queries. */
  sentences: CorpusSentence[];
  titlesSample: string[];
}

const VOCABULARY_SIZE = 40_000;
const ZIPF_EXPONENT = 1.0;
const BATCH_PAGES = 1_000;

/** Lower case, diacritics stripped, ß as the index spells it: the lexeme `dt_search` makes of a word (api/search/pageSearchIndex.ts). */
export function foldWord(word: string): string {
  return word.toLowerCase().replace(/ß/g, INDEXED_SHARP_S).normalize('NFD').replace(/\p{M}/gu, '');
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

// Syllable material per language: onset + nucleus + coda, an ending now and then.
const GERMAN = {
  onsets: ['b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'w', 'z', 'sch', 'st', 'str', 'br', 'kr', 'gr', 'pf', 'kl', 'fl', 'schw', 'spr', 'wiss', 'b'],
  nuclei: ['a', 'e', 'i', 'o', 'u', 'ä', 'ö', 'ü', 'ei', 'au', 'ie', 'eu', 'äu', 'a', 'e'],
  codas: ['', 'n', 'r', 'l', 's', 't', 'ch', 'ck', 'ng', 'nd', 'rt', 'ß', 'tz', 'll', 'mm', 'st', 'rn', 'ft', 'cht', 'um', 'sen'],
  endings: ['ung', 'heit', 'keit', 'lich', 'schaft', 'chen', 'en', 'er', 'isch', 'bar', 'se'],
};
const ENGLISH = {
  onsets: ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'y', 'th', 'sh', 'ch', 'wh', 'bl', 'cr', 'tr', 'sp', 'gl', 'kn', 'wr'],
  nuclei: ['a', 'e', 'i', 'o', 'u', 'ea', 'oo', 'ai', 'ou', 'ee', 'oa', 'y'],
  codas: ['', 'n', 'r', 'l', 's', 't', 'ck', 'ng', 'nd', 'rt', 'ght', 'll', 'st', 'x', 'mp', 'sh', 'dge'],
  endings: ['ing', 'tion', 'ness', 'ment', 'able', 'ly', 'er', 'ful', 'less', 'ous'],
};
const FRENCH = {
  onsets: ['b', 'c', 'd', 'f', 'g', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'ch', 'gr', 'pr', 'tr'],
  nuclei: ['a', 'e', 'i', 'o', 'u', 'é', 'è', 'ou', 'eau', 'oi', 'ai', 'au', 'é'],
  codas: ['', 'n', 'r', 'l', 's', 't', 'x', 'ne', 'que', 'tte', 'ille'],
  endings: ['ette', 'ique', 'oir', 'ée', 'eur', 'age', 'ment'],
};

/** Real words at a relative rank (share of the vocabulary), so queries can name them. */
const REAL_WORDS: readonly [string, number][] = [
  ['knowledge', 0.001],
  ['Wissen', 0.004],
  ['Straße', 0.006],
  ['Basis', 0.01],
  ['Bäume', 0.03],
  ['café', 0.08],
  ['Wissensbasis', 0.3],
];

/** Ten labels per pond: index → name and parent index. Their names are indexed (weight B). */
const LABELS: readonly { name: string; parent: number | null }[] = [
  { name: 'Projekte', parent: null },
  { name: 'Alpha', parent: 0 },
  { name: 'Beta', parent: 0 },
  { name: 'Handbuch', parent: null },
  { name: 'Onboarding', parent: 3 },
  { name: 'Sicherheit', parent: 3 },
  { name: 'Meeting notes', parent: null },
  { name: 'Archiv', parent: null },
  { name: 'Altbestand', parent: 7 },
  { name: 'Howto', parent: null },
];
const HANDBOOK_LABEL = 3;
const SECURITY_LABEL = 5;
const LABEL_WORDS = new Set(LABELS.flatMap((label) => label.name.split(' ').map(foldWord)));

/** Pseudo-words that look like words, distinct after folding; short ones tend to rank first, compounds late. */
function buildVocabulary(random: () => number, size: number): string[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // The brief's example patterns ('wiss' → Wissensbasis, 'ssens') stay non-words, so they reach the substring fallback.
  const taken = new Set([...LABEL_WORDS, ...REAL_WORDS.map(([word]) => foldWord(word)), 'wiss', 'ssens']);
  const entries: { word: string; key: number }[] = [];
  const stems: string[] = [];
  const add = (word: string, key: number): boolean => {
    const folded = foldWord(word);
    if (word.length < 3 || word.length > 14 || taken.has(folded)) return false;
    taken.add(folded);
    entries.push({ word, key });
    return true;
  };
  const target = size - REAL_WORDS.length;
  const compounds = Math.floor(target * 0.12);
  while (entries.length < target - compounds) {
    const roll = random();
    const family = roll < 0.55 ? GERMAN : roll < 0.95 ? ENGLISH : FRENCH;
    let word = '';
    for (let i = 1 + Math.floor(random() * 3); i > 0; i -= 1) word += (random() < 0.2 ? '' : pick(family.onsets)) + pick(family.nuclei) + pick(family.codas);
    if (random() < 0.3) word += pick(family.endings);
    const german = family === GERMAN;
    // German nouns are capitalised in running text; a search must fold that away.
    if (german && random() < 0.45) word = capitalise(word);
    if (add(word, word.length + random() * 8) && german && word.length <= 8) stems.push(word.toLowerCase());
  }
  // Compounds glue two stems (sometimes with a linking s), so substrings find words inside words.
  while (entries.length < target) {
    const word = capitalise(pick(stems) + (random() < 0.3 ? 's' : '') + pick(stems));
    add(word, word.length + 6 + random() * 8);
  }
  const vocabulary = entries.sort((a, b) => a.key - b.key).map((entry) => entry.word);
  for (const [word, share] of REAL_WORDS) vocabulary.splice(Math.floor(share * size), 0, word);
  return vocabulary;
}

/** A 32-bit mix of seed and page number: neighbouring pages must not get overlapping streams. */
function pageSeed(seed: number, n: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

interface GeneratedPage {
  /** Vocabulary ranks. */
  title: number[];
  sentences: number[][];
  /** Label indexes (into LABELS), 0–2 of them. */
  labels: number[];
}

function zipfSampler(size: number, exponent: number): (random: () => number) => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank += 1) cumulative[rank] = total += 1 / (rank + 1) ** exponent;
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

function renderSentence(words: readonly string[], variant: number): string {
  const parts = words.map((word, index) => (index === 0 ? capitalise(word) : word));
  if (parts.length > 8) parts[(parts.length >> 1) - 1] += ',';
  return parts.join(' ') + '...!?'.charAt(variant % 5);
}

/**
 * Page ids derived from the page number (a v4-shaped uuid of its md5): every run seeds the same
 * ids, so pages of equal rank come in the same order (the id breaks ties) and two runs name
 * the same first hits.
 */
function benchPageIdSql(number: string): string {
  return `overlay(overlay(md5('dt-bench-page-' || ${number}) placing '4' from 13) placing '8' from 17)::uuid`;
}

export async function seedSearchCorpus(sequelize: Sequelize, options: SearchCorpusOptions = {}): Promise<SearchCorpus> {
  const pageTotal = options.pages ?? 100_000;
  const pondTotal = options.ponds ?? 50;
  const wordsPerPage = options.wordsPerPage ?? 300;
  const seed = options.seed ?? 7;
  const log = options.log ?? ((line: string) => console.log(line));
  const started = performance.now();
  const seconds = (from = started) => ((performance.now() - from) / 1000).toFixed(1);
  const select = <T extends object>(sql: string, bind: unknown[] = []) => sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });

  const vocabulary = buildVocabulary(seededRandom(seed), VOCABULARY_SIZE);
  const folded = vocabulary.map(foldWord);
  const sampleRank = zipfSampler(vocabulary.length, ZIPF_EXPONENT);
  const generatePage = (n: number): GeneratedPage => {
    const random = seededRandom(pageSeed(seed, n));
    const title = Array.from({ length: 2 + Math.floor(random() * 5) }, () => sampleRank(random));
    const bodyLength = Math.round(wordsPerPage * (2 / 3 + (random() * 2) / 3));
    const sentences: number[][] = [];
    for (let count = 0; count < bodyLength; ) {
      const length = Math.min(5 + Math.floor(random() * 14), bodyLength - count);
      sentences.push(Array.from({ length }, () => sampleRank(random)));
      count += length;
    }
    const labels: number[] = [];
    for (let wanted = Math.floor(random() * 3); labels.length < wanted; ) {
      const label = Math.floor(random() * LABELS.length);
      if (!labels.includes(label)) labels.push(label);
    }
    return { title, sentences, labels };
  };
  // Distinct words per page without a Set per page: a stamp per rank says which page saw it last.
  const stamps = new Int32Array(vocabulary.length).fill(-1);
  const countWords = (page: GeneratedPage, n: number, frequency: Int32Array) => {
    for (const rank of [...page.title, ...page.sentences.flat()]) {
      if (stamps[rank] === n) continue;
      stamps[rank] = n;
      frequency[rank] = frequency[rank]! + 1;
    }
  };

  const users = await select<{ id: string; username: string }>(
    `INSERT INTO users (username, email, display_name, status, password_hash)
     VALUES ('owner', 'owner@example.org', 'Owner', 'ACTIVE', 'x'), ('reader', 'reader@example.org', 'Reader', 'ACTIVE', 'x') RETURNING id, username`,
  );
  const [ownerId, readerId] = [users.find((user) => user.username === 'owner')!.id, users.find((user) => user.username === 'reader')!.id];
  const ponds = await select<{ id: string; slug: string }>(
    `INSERT INTO ponds (slug, name, kind, owner_id)
     SELECT 'teich-' || n, 'Teich ' || n, 'shared', $1::uuid FROM generate_series(1, $2::int) n RETURNING id, slug`,
    [ownerId, pondTotal],
  );
  const pondNumber = (slug: string) => Number(slug.slice('teich-'.length));
  const pondIds = ponds.sort((a, b) => pondNumber(a.slug) - pondNumber(b.slug)).map((pond) => pond.id);
  // labelIds[pond][label index]; roots first so children can name their parent.
  const labelIds: string[][] = [];
  for (const pondId of pondIds) {
    const ids: string[] = [];
    for (const [index, label] of LABELS.entries()) {
      const parentId = label.parent === null ? null : ids[label.parent]!;
      const [row] = await select<{ id: string }>(`INSERT INTO labels (pond_id, parent_id, name, color) VALUES ($1, $2, $3, $4) RETURNING id`, [
        pondId,
        parentId,
        label.name,
        `#${(0x336699 + index * 0x0a0b0c).toString(16).slice(-6)}`,
      ]);
      ids.push(row!.id);
    }
    labelIds.push(ids);
  }

  // Pages in batches: generated, written, forgotten. Pond of page n: n mod ponds.
  log(`seeding ${pageTotal} pages in ${pondTotal} ponds (${vocabulary.length} words, ~${wordsPerPage} words a page)`);
  const documentCounts = new Int32Array(vocabulary.length);
  const pageIdByNumber: string[] = [];
  const sentences: (CorpusSentence & { n: number })[] = [];
  const sentenceEvery = Math.max(1, Math.floor(pageTotal / 400));
  const titlesSample: string[] = [];
  let lapStarted = performance.now();
  for (let first = 0; first < pageTotal; first += BATCH_PAGES) {
    const numbers: number[] = [];
    const pagePonds: string[] = [];
    const titles: string[] = [];
    const texts: string[] = [];
    const wordCounts: number[] = [];
    const labelRows: { n: number; labelId: string; pondId: string }[] = [];
    for (let n = first; n < Math.min(first + BATCH_PAGES, pageTotal); n += 1) {
      const page = generatePage(n);
      countWords(page, n, documentCounts);
      const pond = n % pondTotal;
      const title = page.title.map((rank, index) => (index === 0 ? capitalise(vocabulary[rank]!) : vocabulary[rank]!)).join(' ');
      const paragraphs: string[] = [];
      for (let i = 0; i < page.sentences.length; i += 5) {
        paragraphs.push(page.sentences.slice(i, i + 5).map((ranks, j) => renderSentence(ranks.map((rank) => vocabulary[rank]!), n + i + j)).join(' '));
      }
      numbers.push(n);
      pagePonds.push(pondIds[pond]!);
      titles.push(title);
      texts.push(paragraphs.join('\n\n'));
      wordCounts.push(page.sentences.reduce((sum, sentence) => sum + sentence.length, 0));
      for (const label of page.labels) labelRows.push({ n, labelId: labelIds[pond]![label]!, pondId: pondIds[pond]! });
      if (n % sentenceEvery === 0) for (const ranks of page.sentences.slice(0, 2)) sentences.push({ n, words: ranks.map((rank) => vocabulary[rank]!), readable: false });
      if (titlesSample.length < 20) titlesSample.push(title);
    }
    const inserted = await select<{ id: string; slug: string }>(
      `INSERT INTO pages (id, pond_id, slug, title, position, created_by, updated_by, created_at, updated_at)
       SELECT ${benchPageIdSql('t.n')}, t.pond_id, 'p-' || t.n, t.title, lpad(t.n::text, 7, '0'), $4, $4, now() - t.n * interval '1 minute', now() - t.n * interval '1 minute'
         FROM unnest($1::uuid[], $2::int[], $3::text[]) AS t (pond_id, n, title)
       RETURNING id, slug`,
      [pagePonds, numbers, titles, ownerId],
    );
    for (const row of inserted) pageIdByNumber[Number(row.slug.slice(2))] = row.id;
    await sequelize.query(
      `INSERT INTO page_contents (page_id, html, markdown, plain_text, word_count)
       SELECT t.page_id, '<p>' || replace(t.text, E'\\n\\n', '</p><p>') || '</p>', t.text, t.text, t.words
         FROM unnest($1::uuid[], $2::text[], $3::int[]) AS t (page_id, text, words)`,
      { bind: [numbers.map((n) => pageIdByNumber[n]!), texts, wordCounts] },
    );
    await sequelize.query(`INSERT INTO page_labels (page_id, label_id, pond_id) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[])`, {
      bind: [labelRows.map((row) => pageIdByNumber[row.n]!), labelRows.map((row) => row.labelId), labelRows.map((row) => row.pondId)],
    });
    const done = Math.min(first + BATCH_PAGES, pageTotal);
    if (done % 10_000 === 0 || done === pageTotal) {
      log(`  pages ${done}/${pageTotal}: ${seconds(lapStarted)} s for the last ${done % 10_000 || 10_000} (total ${seconds()} s)`);
      lapStarted = performance.now();
    }
  }

  // Grants: the owner administers every pond; the reader reaches about 30 % of the pages
  // through every mechanism (pond, label and page scope, allow and deny, the public).
  const share = (fraction: number) => Math.max(1, Math.round(pondTotal * fraction));
  const readerPonds = pondIds.slice(0, share(0.24));
  const labelPonds = pondIds.slice(readerPonds.length, readerPonds.length + share(0.12));
  const publicPonds = pondIds.slice(readerPonds.length + labelPonds.length, readerPonds.length + labelPonds.length + share(0.04));
  const pageDenyPonds = readerPonds.filter((_, i) => i % 3 === 0);
  const labelDenyPonds = readerPonds.filter((_, i) => i % 3 === 1);
  const labelOf = (pondId: string, label: number) => labelIds[pondIds.indexOf(pondId)]![label]!;
  const grant = (sql: string, bind: unknown[]) =>
    sequelize.query(`INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_label_id, scope_page_id, effect) ${sql}`, { bind });
  await grant(`SELECT p, 'user', $2::uuid, 'pond_admin', 'pond', NULL, NULL, 'allow' FROM unnest($1::uuid[]) p`, [pondIds, ownerId]);
  await grant(`SELECT p, 'user', $2::uuid, 'reader', 'pond', NULL, NULL, 'allow' FROM unnest($1::uuid[]) p`, [readerPonds, readerId]);
  await grant(`SELECT p, 'public', NULL, 'reader', 'pond', NULL, NULL, 'allow' FROM unnest($1::uuid[]) p`, [publicPonds]);
  // Label-only ponds: the reader may read the handbook (and so its two child labels).
  await grant(`SELECT t.p, 'user', $3::uuid, 'reader', 'label', t.l, NULL, 'allow' FROM unnest($1::uuid[], $2::uuid[]) t (p, l)`, [
    labelPonds,
    labelPonds.map((pondId) => labelOf(pondId, HANDBOOK_LABEL)),
    readerId,
  ]);
  // A label deny on 'Sicherheit', with page allows on three of its pages (the page level decides first).
  const securityLabels = labelDenyPonds.map((pondId) => labelOf(pondId, SECURITY_LABEL));
  await grant(`SELECT t.p, 'user', $3::uuid, 'reader', 'label', t.l, NULL, 'deny' FROM unnest($1::uuid[], $2::uuid[]) t (p, l)`, [labelDenyPonds, securityLabels, readerId]);
  await grant(
    `SELECT s.pond_id, 'user', $2::uuid, 'reader', 'page', NULL, s.page_id, 'allow'
       FROM (SELECT pl.pond_id, pl.page_id, row_number() OVER (PARTITION BY pl.pond_id ORDER BY p.position) AS r
               FROM page_labels pl JOIN pages p ON p.id = pl.page_id WHERE pl.label_id = ANY($1::uuid[])) s
      WHERE s.r <= 3`,
    [securityLabels, readerId],
  );
  // Page denies on every 50th page of some reader ponds.
  await grant(
    `SELECT s.pond_id, 'user', $2::uuid, 'reader', 'page', NULL, s.id, 'deny'
       FROM (SELECT id, pond_id, row_number() OVER (PARTITION BY pond_id ORDER BY position) AS r FROM pages WHERE pond_id = ANY($1::uuid[])) s
      WHERE s.r % 50 = 0`,
    [pageDenyPonds, readerId],
  );

  // Vectors through the engine's own indexing path, one pond per transaction, two at a time.
  const vectorsStarted = performance.now();
  const queue = [...pondIds];
  const worker = async () => {
    for (let pondId = queue.shift(); pondId; pondId = queue.shift()) {
      const id = pondId;
      await sequelize.transaction((transaction) => reindexLivePondPages(id, transaction));
    }
  };
  await Promise.all([worker(), worker()]);
  log(`  vectors: ${seconds(vectorsStarted)} s (reindexLivePondPages for ${pondIds.length} ponds, 2 in parallel)`);
  // The two workers' updates land in the table in no fixed order; a bounded scan yields the
  // first matches in table order, so the rows are put in id order for every run to find the same.
  const clusterStarted = performance.now();
  await sequelize.query('CLUSTER pages USING pages_pkey');
  log(`  CLUSTER pages by id: ${seconds(clusterStarted)} s`);
  const vacuumStarted = performance.now();
  await sequelize.query('VACUUM ANALYZE');
  log(`  VACUUM ANALYZE: ${seconds(vacuumStarted)} s`);

  // What the reader may read, exactly as the policy says, then their document frequencies.
  const readable = new Set<string>();
  const allPages = await select<{ id: string; pond_id: string }>(`SELECT id, pond_id FROM pages ORDER BY position`);
  for (let i = 0; i < allPages.length; i += 10_000) {
    const chunk = allPages.slice(i, i + 10_000).map((row) => ({ id: row.id, pondId: row.pond_id, trashedAt: null }));
    for (const id of await permittedPageIds(sequelize, { userId: readerId, signedIn: true, isSiteAdmin: false }, chunk)) readable.add(id);
  }
  const readableCounts = new Int32Array(vocabulary.length);
  stamps.fill(-1);
  for (let n = 0; n < pageTotal; n += 1) if (readable.has(pageIdByNumber[n]!)) countWords(generatePage(n), n, readableCounts);
  for (const sentence of sentences) sentence.readable = readable.has(pageIdByNumber[sentence.n]!);
  log(`  the reader may read ${readable.size} of ${pageTotal} pages (${((100 * readable.size) / pageTotal).toFixed(1)} %); seeding took ${seconds()} s`);

  const toMap = (counts: Int32Array) => new Map(folded.map((word, rank) => [word, counts[rank]!]));
  return {
    ownerId,
    readerId,
    pondIds,
    readerPondId: readerPonds.find((pondId) => !pageDenyPonds.includes(pondId) && !labelDenyPonds.includes(pondId)) ?? readerPonds[0]!,
    pageCount: pageTotal,
    readableCount: readable.size,
    vocabulary,
    documentFrequency: toMap(documentCounts),
    readableFrequency: toMap(readableCounts),
    reservedWords: new Set(LABEL_WORDS),
    sentences: sentences.map(({ words, readable: isReadable }) => ({ words, readable: isReadable })),
    titlesSample,
  };
}
