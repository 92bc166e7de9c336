/**
 * German transliterations in search (GET /search): 'Baeume' finds 'Bäume', 'Strasse' finds
 * 'Straße', 'Groesse' finds 'Größe', and each the other way round; pages saying the word as
 * typed rank above those found only through the other spelling; the other spelling is
 * highlighted; exclusions, phrases and the substring fallback know both spellings; a cursor walk
 * crosses the new tier without repeating or skipping a page.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HIT_END, HIT_START, type SearchHit } from './searchEngine.ts';
import { parseSearchQuery, transliterationOf } from './searchQuery.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { searchPath, type SearchParams } from '../testing/searchRequests.ts';

const marked = (text: string) => text.replaceAll(HIT_START, '[').replaceAll(HIT_END, ']');

describe('the other spelling of a word', () => {
  test('umlauts spelled out and back; ß needs none; ae/oe/ue after a vowel or q stay', () => {
    assert.equal(transliterationOf('bäume'), 'baeume');
    assert.equal(transliterationOf('baeume'), 'bäume');
    assert.equal(transliterationOf('größe'), 'groeße');
    assert.equal(transliterationOf('groesse'), 'grösse');
    assert.equal(transliterationOf('muenchen'), 'münchen');
    for (const word of ['strasse', 'straße', 'feuer', 'quelle', 'neue', 'teich']) assert.equal(transliterationOf(word), null, word);
    assert.deepEqual(parseSearchQuery('Baeume "größere Teiche" -Muehle').transliterations, [['baeume', 'bäume'], ['größere', 'groeßere'], ['muehle', 'mühle']]);
  });
});

describe('GET /search with German transliterations', () => {
  const cast = usePondCast();

  async function createPage(pondId: string, title: string, markdown: string) {
    const response = await cast.editor.client.post(`/ponds/${pondId}/pages`, { title, markdown });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string };
  }

  async function search(params: SearchParams): Promise<{ items: SearchHit[]; nextCursor: string | null }> {
    const response = await cast.reader.client.get(searchPath(params));
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  const ids = async (params: SearchParams) => (await search(params)).items.map((hit) => hit.id);

  test('each pair both ways; the word as typed ranks above its other spelling, and the other spelling is highlighted', async () => {
    const pond = await cast.seedTeamPond();
    const umlaut = await createPage(pond.id, 'Garten', 'Im Garten stehen alte Bäume.\n');
    const spelled = await createPage(pond.id, 'Hof', 'Im Hof stehen junge Baeume.\n');
    const sharp = await createPage(pond.id, 'Weg', 'Die Straße ist lang.\n');
    const doubled = await createPage(pond.id, 'Gasse', 'Die Strasse ist kurz.\n');
    const size = await createPage(pond.id, 'Maß', 'Die Größe zählt.\n');
    const sizeSpelled = await createPage(pond.id, 'Mass', 'Die Groesse zaehlt.\n');
    await createPage(pond.id, 'Anderes', 'Baum, Bauer, Gross und Strase.\n');

    assert.deepEqual(await ids({ q: 'Baeume', pondId: pond.id }), [spelled.id, umlaut.id], 'Baeume: exact first, then Bäume');
    assert.deepEqual(await ids({ q: 'Bäume', pondId: pond.id }), [umlaut.id, spelled.id], 'Bäume: exact first, then Baeume');
    assert.deepEqual(await ids({ q: 'Groesse', pondId: pond.id }), [sizeSpelled.id, size.id], 'Groesse: exact first, then Größe');
    assert.deepEqual(await ids({ q: 'Größe', pondId: pond.id }), [size.id, sizeSpelled.id], 'Größe: exact first, then Groesse');
    assert.deepEqual((await ids({ q: 'Strasse', pondId: pond.id })).sort(), [sharp.id, doubled.id].sort(), 'Strasse finds Straße');
    assert.deepEqual((await ids({ q: 'Straße', pondId: pond.id })).sort(), [sharp.id, doubled.id].sort(), 'Straße finds Strasse');

    const folded = (await search({ q: 'baeume', pondId: pond.id })).items[1]!;
    assert.equal(marked(folded.snippet), 'Im Garten stehen alte [Bäume].');
    assert.equal(folded.match, 'fulltext');
    const back = (await search({ q: 'größe', pondId: pond.id })).items[1]!;
    assert.equal(marked(back.snippet), 'Die [Groesse] zaehlt.');
  });

  test('a title hit through the other spelling still ranks below a body hit of the word as typed', async () => {
    const pond = await cast.seedTeamPond();
    const titled = await createPage(pond.id, 'Mühlenteich', 'Ein Teich.\n');
    const body = await createPage(pond.id, 'Wasser', 'Am Muehlenteich.\n');
    assert.deepEqual(await ids({ q: 'muehlenteich', pondId: pond.id }), [body.id, titled.id]);
    assert.deepEqual(await ids({ q: 'mühlenteich', pondId: pond.id }), [titled.id, body.id]);
  });

  test('exclusions and phrases know both spellings; the substring fallback finds parts of the other spelling', async () => {
    const pond = await cast.seedTeamPond();
    const trees = await createPage(pond.id, 'Wald', 'Hohe Bäume im Wald.\n');
    const both = await createPage(pond.id, 'Park', 'Bäume im Park, und eine Mühle.\n');
    assert.deepEqual(await ids({ q: 'baeume -muehle', pondId: pond.id }), [trees.id], 'the excluded word in its other spelling excludes too');
    assert.deepEqual(await ids({ q: '"hohe baeume"', pondId: pond.id }), [trees.id], 'a phrase with the other spelling');
    const partial = await search({ q: 'baeum', pondId: pond.id });
    assert.deepEqual(partial.items.map((hit) => hit.id).sort(), [trees.id, both.id].sort());
    assert.ok(partial.items.every((hit) => hit.match === 'substring'));
  });

  test('a cursor walk crosses from exact to transliterated to substring hits, each page once, in order', async () => {
    const pond = await cast.seedTeamPond();
    const exact = [await createPage(pond.id, 'Eins', 'Kraeuter.\n'), await createPage(pond.id, 'Zwei', 'Kraeuter und Kraeuter.\n')];
    const other = [await createPage(pond.id, 'Drei', 'Kräuter.\n'), await createPage(pond.id, 'Vier', 'Kräuter, Kräuter.\n')];
    const partial = await createPage(pond.id, 'Fünf', 'Kraeutergarten.\n');
    const all = await ids({ q: 'kraeuter', pondId: pond.id, limit: 10 });
    assert.equal(all.length, 5);
    assert.deepEqual(all.slice(0, 2).sort(), exact.map((page) => page.id).sort());
    assert.deepEqual(all.slice(2, 4).sort(), other.map((page) => page.id).sort());
    assert.equal(all[4], partial.id);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: SearchHit[]; nextCursor: string | null } = await search({ q: 'kraeuter', pondId: pond.id, limit: 1, ...(cursor ? { cursor } : {}) });
      walked.push(...page.items.map((hit) => hit.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(walked, all);
  });
});
