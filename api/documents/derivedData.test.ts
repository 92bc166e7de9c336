/**
 * The save path's derived data against a real database: caches and outline exactly as the
 * content pipeline renders them, links resolved or phantom, mentions and their
 * `page_mentions_changed` notification (newly mentioned users only), the search vector
 * (weights, folding, trash, size), `changed` and `updated_by`, and the transaction.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { QueryTypes } from 'sequelize';
import { documentToHtml, documentToMarkdown, extract, markdownToDocument, type DocumentJson } from '../../content-pipeline/index.ts';
import { Page } from '../models/index.ts';
import { seedLabel, seedPage, seedPageLabels, seedSharedPond } from '../testing/accessFixtures.ts';
import { waitFor } from '../testing/polling.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { reindexPages, SEARCH_BODY_MAX_CHARS } from '../search/pageSearchIndex.ts';
import { PAGE_MENTIONS_CHANGED_CHANNEL, saveDerivedData } from './derivedData.ts';

describe('saveDerivedData', () => {
  const cast = usePondCast();
  // Nested, so the listener ends before the instance drops its database.
  describe('against a LISTEN client', () => savingTests(cast));
});

function savingTests(cast: ReturnType<typeof usePondCast>): void {
  let listener: pg.Client;
  let notifications: unknown[] = [];

  before(async () => {
    listener = new pg.Client({ connectionString: cast.instance.services.config.databaseUrl! });
    await listener.connect();
    listener.on('notification', (message) => {
      if (message.channel === PAGE_MENTIONS_CHANGED_CHANNEL && message.payload) notifications.push(JSON.parse(message.payload));
    });
    await listener.query(`LISTEN ${PAGE_MENTIONS_CHANGED_CHANNEL}`);
  });
  after(() => listener.end());
  beforeEach(() => {
    notifications = [];
  });

  const sequelize = () => cast.instance.services.sequelize;

  async function sql<T extends object>(query: string, replacements: Record<string, unknown> = {}): Promise<T[]> {
    return sequelize().query<T>(query, { replacements, type: QueryTypes.SELECT });
  }

  function save(pageId: string, markdown: string, authorIds: string[] = [cast.editor.user.id]) {
    return saveDerivedData(sequelize(), { pageId, document: markdownToDocument(markdown), authorIds });
  }

  async function linksOf(pageId: string): Promise<{ target_slug: string; target_page_id: string | null; snippet: string; pond_id: string }[]> {
    return sql(`SELECT target_slug, target_page_id, snippet, pond_id FROM page_links WHERE source_page_id = :pageId ORDER BY target_slug`, { pageId });
  }

  async function mentionsOf(pageId: string): Promise<string[]> {
    return (await sql<{ user_id: string }>(`SELECT user_id FROM page_mentions WHERE page_id = :pageId ORDER BY user_id`, { pageId })).map((row) => row.user_id);
  }

  /** Waits for the commit's notification to arrive (NOTIFY is asynchronous to the client). */
  async function settledNotifications(count: number): Promise<unknown[]> {
    await waitFor(() => notifications.length >= count, 3000, `${count} notifications`);
    // A little longer, so an unexpected extra notification would be seen as well.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return notifications;
  }

  async function rank(pageId: string, word: string): Promise<number | null> {
    const rows = await sql<{ rank: number | null; hit: boolean | null }>(
      `SELECT ts_rank(search_vector, query) AS rank, search_vector @@ query AS hit
         FROM pages, to_tsquery('simple', dt_unaccent(lower(:word))) AS query WHERE id = :pageId`,
      { pageId, word },
    );
    return rows[0]?.hit ? rows[0].rank : null;
  }

  test('page_contents holds exactly what the pipeline renders: HTML, Markdown, outline, plain text, word count', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Rendered');
    const markdown = '# Teich\n\nEnten *schwimmen* im [[dorfteich|Dorfteich]].\n\n## Ufer\n\n- Schilf\n- Bäume\n\n## Ufer\n\nNoch ein Ufer.\n';
    const document = markdownToDocument(markdown);
    const before = Date.now();
    const result = await saveDerivedData(sequelize(), { pageId: page.id, document, authorIds: [cast.editor.user.id] });
    assert.deepEqual(result, { changed: true, addedMentionUserIds: [] });
    const [row] = await sql<{ html: string; markdown: string; outline: unknown; plain_text: string; word_count: number; rendered_at: Date }>(
      `SELECT html, markdown, outline, plain_text, word_count, rendered_at FROM page_contents WHERE page_id = :pageId`,
      { pageId: page.id },
    );
    assert.ok(row);
    const extraction = extract(document);
    assert.equal(row.html, documentToHtml(document));
    assert.equal(row.markdown, documentToMarkdown(document));
    assert.deepEqual(row.outline, extraction.outline);
    assert.equal(row.plain_text, extraction.text);
    assert.equal(row.word_count, extraction.wordCount);
    assert.ok(row.rendered_at.getTime() >= before - 1000);
    assert.deepEqual(
      (row.outline as { level: number; text: string }[]).map((entry) => [entry.level, entry.text]),
      [[1, 'Teich'], [2, 'Ufer'], [2, 'Ufer']],
    );
  });

  test('changed: a first save and a new Markdown change the page (updated_at, the last author), the same Markdown does not', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Changes', { createdBy: cast.owner.user.id });
    await sequelize().query(`UPDATE pages SET updated_at = '2020-01-01T00:00:00Z' WHERE id = :id`, { replacements: { id: page.id } });
    const updated = async () => (await sql<{ updated_at: Date; updated_by: string | null }>(`SELECT updated_at, updated_by FROM pages WHERE id = :id`, { id: page.id }))[0]!;

    assert.equal((await save(page.id, 'First.\n', [cast.owner.user.id, cast.editor.user.id])).changed, true);
    const first = await updated();
    assert.ok(first.updated_at.getTime() > Date.parse('2021-01-01'));
    assert.equal(first.updated_by, cast.editor.user.id);

    assert.equal((await save(page.id, 'First.\n', [cast.reader.user.id])).changed, false);
    assert.deepEqual(await updated(), first);

    // No author (e.g. a system save): the time moves, the last editor stays.
    assert.equal((await save(page.id, 'Second.\n', [])).changed, true);
    const second = await updated();
    assert.ok(second.updated_at.getTime() >= first.updated_at.getTime());
    assert.equal(second.updated_by, cast.editor.user.id);
  });

  test('links: one row per target (any case), resolved to the live page of the pond, else a phantom; snippets from the extraction', async () => {
    const pond = await cast.seedTeamPond();
    const otherPond = await seedSharedPond(cast.owner.user.id);
    const source = await seedPage(pond.id, 'Source');
    const target = await seedPage(pond.id, 'Target');
    const trashed = await seedPage(pond.id, 'Trashed', { trashed: true });
    const elsewhere = await seedPage(otherPond.id, 'Elsewhere');
    await Page.update({ slug: 'target' }, { where: { id: target.id } });
    await Page.update({ slug: 'gone' }, { where: { id: trashed.id } });
    await Page.update({ slug: 'elsewhere' }, { where: { id: elsewhere.id } });
    await Page.update({ slug: 'source' }, { where: { id: source.id } });

    const markdown = 'See [[TARGET]] and [[target|again]] and [[missing]].\n\nAlso [[gone]], [[elsewhere]] and me: [[source]].\n';
    await save(source.id, markdown);
    const snippets = new Map(extract(markdownToDocument(markdown)).links.map((link) => [link.targetSlug, link.snippet]));
    assert.deepEqual(await linksOf(source.id), [
      { target_slug: 'TARGET', target_page_id: target.id, snippet: snippets.get('TARGET')!, pond_id: pond.id },
      { target_slug: 'elsewhere', target_page_id: null, snippet: snippets.get('elsewhere')!, pond_id: pond.id },
      { target_slug: 'gone', target_page_id: null, snippet: snippets.get('gone')!, pond_id: pond.id },
      { target_slug: 'missing', target_page_id: null, snippet: snippets.get('missing')!, pond_id: pond.id },
      { target_slug: 'source', target_page_id: source.id, snippet: snippets.get('source')!, pond_id: pond.id },
    ]);

    // A later save replaces the set: dropped links go, a snippet follows the text.
    await save(source.id, 'Only [[target]] now, with new words.\n');
    const [only] = await linksOf(source.id);
    assert.deepEqual(await linksOf(source.id), [{ target_slug: 'target', target_page_id: target.id, snippet: only!.snippet, pond_id: pond.id }]);
    assert.equal(only!.snippet, 'Only target now, with new words.');
    await save(source.id, 'No links.\n');
    assert.deepEqual(await linksOf(source.id), []);
  });

  test('mentions: only existing users are kept; NOTIFY at commit names the newly mentioned users only', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Mentions');
    const mention = (id: string) => `[@Someone](dt-mention:${id})`;
    const unknownUser = '00000000-0000-4000-8000-00000000abcd';
    const [reader, editor, owner] = [cast.reader.user.id, cast.editor.user.id, cast.owner.user.id];

    const first = await save(page.id, `Hi ${mention(reader)} and ${mention(editor)}, ${mention(unknownUser)} and ${mention('not-a-uuid')}.\n`, [owner]);
    assert.deepEqual([...first.addedMentionUserIds].sort(), [reader, editor].sort());
    assert.deepEqual(await mentionsOf(page.id), [reader, editor].sort());
    const [payload] = (await settledNotifications(1)) as { pageId: string; pondId: string; authorIds: string[]; addedUserIds: string[] }[];
    assert.equal(notifications.length, 1);
    assert.deepEqual({ ...payload!, addedUserIds: [...payload!.addedUserIds].sort() }, { pageId: page.id, pondId: pond.id, authorIds: [owner], addedUserIds: [reader, editor].sort() });

    notifications = [];
    const second = await save(page.id, `Hi ${mention(editor)} and ${mention(owner)}.\n`, [reader, editor]);
    assert.deepEqual(second.addedMentionUserIds, [owner]);
    assert.deepEqual(await mentionsOf(page.id), [editor, owner].sort());
    assert.deepEqual(await settledNotifications(1), [{ pageId: page.id, pondId: pond.id, authorIds: [reader, editor], addedUserIds: [owner] }]);

    // Mentions that were there already, or removed ones, notify nothing.
    notifications = [];
    assert.deepEqual((await save(page.id, `Only ${mention(owner)}.\n`)).addedMentionUserIds, []);
    assert.deepEqual(await mentionsOf(page.id), [owner]);
    assert.deepEqual(await settledNotifications(0), []);
  });

  test('a save inside a rolled-back transaction leaves nothing behind and notifies nobody', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Rolled back');
    await assert.rejects(
      sequelize().transaction(async (transaction) => {
        const document = markdownToDocument(`[[x]] [@R](dt-mention:${cast.reader.user.id})\n`);
        await saveDerivedData(sequelize(), { pageId: page.id, document, authorIds: [] }, transaction);
        throw new Error('abort');
      }),
      /abort/,
    );
    assert.deepEqual(await sql(`SELECT page_id FROM page_contents WHERE page_id = :id`, { id: page.id }), []);
    assert.deepEqual(await linksOf(page.id), []);
    assert.deepEqual(await mentionsOf(page.id), []);
    assert.deepEqual(await settledNotifications(0), []);
  });

  test('search vector: title (A) ranks above labels (B) above body (C); case and diacritics fold', async () => {
    const pond = await cast.seedTeamPond();
    const inTitle = await seedPage(pond.id, 'Zander Fänge');
    const inLabel = await seedPage(pond.id, 'Fische');
    const inBody = await seedPage(pond.id, 'Notizen');
    await seedPageLabels(inLabel, [await seedLabel(pond.id, 'Zander')]);
    await save(inTitle.id, 'Nichts weiter.\n');
    await save(inLabel.id, 'Nichts weiter.\n');
    await save(inBody.id, 'Heute einen ZANDER gefangen, unter alten Bäumen.\n');
    const [title, label, body] = [await rank(inTitle.id, 'zander'), await rank(inLabel.id, 'zander'), await rank(inBody.id, 'zander')];
    assert.ok(title !== null && label !== null && body !== null, `all hit: ${title} ${label} ${body}`);
    assert.ok(title > label && label > body, `title ${title} > label ${label} > body ${body}`);
    // 'Baume' finds 'Bäume' ('Bäumen' here, as a prefix query); 'fange' finds the title's 'Fänge'.
    assert.notEqual(await rank(inBody.id, 'Baumen'), null);
    assert.notEqual(await rank(inTitle.id, 'FANGE'), null);
    assert.equal(await rank(inTitle.id, 'gefangen'), null);
    // reindexPages builds the same vector from what is stored.
    const [saved] = await sql<{ vector: string }>(`SELECT search_vector::text AS vector FROM pages WHERE id = :id`, { id: inBody.id });
    await sequelize().transaction((transaction) => reindexPages([inBody.id], transaction));
    assert.deepEqual(await sql(`SELECT search_vector::text AS vector FROM pages WHERE id = :id`, { id: inBody.id }), [saved]);
  });

  test("unaccent: the query 'Baume' matches the body word 'Bäume'", async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Wald');
    await save(page.id, 'Viele Bäume am Ufer.\n');
    assert.notEqual(await rank(page.id, 'Baume'), null);
    assert.notEqual(await rank(page.id, 'bäume'), null);
  });

  test('a trashed page, or a page of a trashed pond, keeps a null vector while its caches are written', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'In the trash', { trashed: true });
    await save(page.id, 'Still saved [[somewhere]].\n');
    assert.deepEqual(await sql(`SELECT search_vector FROM pages WHERE id = :id`, { id: page.id }), [{ search_vector: null }]);
    assert.equal((await linksOf(page.id)).length, 1);

    const live = await seedPage(pond.id, 'Live page');
    await sequelize().query(`UPDATE ponds SET trashed_at = now() WHERE id = :id`, { replacements: { id: pond.id } });
    await save(live.id, 'Saved while the pond is in the trash.\n');
    assert.deepEqual(await sql(`SELECT search_vector FROM pages WHERE id = :id`, { id: live.id }), [{ search_vector: null }]);
    assert.equal((await sql(`SELECT 1 FROM page_contents WHERE page_id = :id`, { id: live.id })).length, 1);
  });

  test('a 5 MB body saves: everything is cached, the vector covers the first part only', async () => {
    const pond = await cast.seedTeamPond();
    const page = await seedPage(pond.id, 'Huge');
    // Distinct words, so the vector would overflow without the cap.
    const words = Array.from({ length: 700_000 }, (_, index) => `wort${index.toString(36)}`);
    const paragraphs: DocumentJson['content'] = [];
    for (let start = 0; start < words.length; start += 1000) {
      paragraphs.push({ type: 'paragraph', content: [{ type: 'text', text: words.slice(start, start + 1000).join(' ') }] });
    }
    const document = { type: 'doc', content: paragraphs } as DocumentJson;
    const result = await saveDerivedData(sequelize(), { pageId: page.id, document, authorIds: [cast.editor.user.id] });
    assert.equal(result.changed, true);
    const [row] = await sql<{ length: number; words: number }>(`SELECT length(plain_text) AS length, word_count AS words FROM page_contents WHERE page_id = :id`, { id: page.id });
    assert.ok(row!.length > 5_000_000, String(row!.length));
    assert.equal(row!.words, words.length);
    assert.notEqual(await rank(page.id, 'wort0'), null);
    let offset = 0;
    const beyondCap = words.find((word) => (offset += word.length + 1) > SEARCH_BODY_MAX_CHARS + 20)!;
    assert.equal(await rank(page.id, beyondCap), null);
  });

  test('a page that no longer exists is left alone', async () => {
    const result = await saveDerivedData(sequelize(), { pageId: '00000000-0000-4000-8000-000000000000', document: markdownToDocument('Gone.\n'), authorIds: [] });
    assert.deepEqual(result, { changed: false, addedMentionUserIds: [] });
  });
}
