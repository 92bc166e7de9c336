/**
 * German transliterations in search (GET /search): 'Baeume' finds 'Bäume', 'Strasse' finds
 * 'Straße', 'Groesse' finds 'Größe', and each the other way round; pages saying the word as
 * typed rank above those found only through the other spelling; the other spelling is
 * highlighted, in snippets and titles; exclusions, phrases and the substring fallback know both
 * spellings; a word written with 'sz' meets no ß-word; a cursor walk crosses the new tier
 * without repeating or skipping a page.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reindexAllLivePages } from './pageSearchIndex.ts';
import { HIT_END, HIT_START, type SearchHit } from './searchEngine.ts';
import { otherSpellingsOf, parseSearchQuery } from './searchQuery.ts';
import { usePondCast } from '../testing/pondTestSetup.ts';
import { searchPath, type SearchParams } from '../testing/searchRequests.ts';

const marked = (text: string) => text.replaceAll(HIT_START, '[').replaceAll(HIT_END, ']');

describe('the other spelling of a word', () => {
  test('umlauts spelled out and back, ß as ss and back, both at once; ae/oe/ue after a vowel or q stay', () => {
    assert.deepEqual(otherSpellingsOf('bäume'), ['baeume']);
    assert.deepEqual(otherSpellingsOf('baeume'), ['bäume']);
    assert.deepEqual(otherSpellingsOf('muenchen'), ['münchen']);
    assert.deepEqual(otherSpellingsOf('straße'), ['strasse']);
    assert.deepEqual(otherSpellingsOf('strasse'), ['straße']);
    assert.deepEqual(otherSpellingsOf('schlusssatz'), ['schlußsatz']);
    assert.deepEqual(otherSpellingsOf('größe'), ['groeße', 'grösse', 'groesse']);
    assert.deepEqual(otherSpellingsOf('groesse'), ['grösse', 'groeße', 'größe']);
    for (const word of ['feuer', 'quelle', 'neue', 'teich', 'szene']) assert.deepEqual(otherSpellingsOf(word), [], word);
    assert.deepEqual(parseSearchQuery('Baeume "größere Teiche" -Muehle -STRAẞE').transliterations, [
      ['baeume', ['bäume']],
      ['größere', ['groeßere', 'grössere', 'groessere']],
      ['muehle', ['mühle']],
      ['straße', ['strasse']],
    ]);
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
    const others = await createPage(pond.id, 'Anderes', 'Baum, Bauer, Gross, Strase und Strasze.\n');

    assert.deepEqual(await ids({ q: 'Baeume', pondId: pond.id }), [spelled.id, umlaut.id], 'Baeume: exact first, then Bäume');
    assert.deepEqual(await ids({ q: 'Bäume', pondId: pond.id }), [umlaut.id, spelled.id], 'Bäume: exact first, then Baeume');
    assert.deepEqual(await ids({ q: 'Groesse', pondId: pond.id }), [sizeSpelled.id, size.id], 'Groesse: exact first, then Größe');
    assert.deepEqual(await ids({ q: 'Größe', pondId: pond.id }), [size.id, sizeSpelled.id], 'Größe: exact first, then Groesse');
    assert.deepEqual(await ids({ q: 'Strasse', pondId: pond.id }), [doubled.id, sharp.id], 'Strasse: exact first, then Straße');
    assert.deepEqual(await ids({ q: 'Straße', pondId: pond.id }), [sharp.id, doubled.id], 'Straße: exact first, then Strasse');
    assert.deepEqual(await ids({ q: 'STRASSE', pondId: pond.id }), [doubled.id, sharp.id], 'case folds as before');
    assert.deepEqual(await ids({ q: 'Strasze', pondId: pond.id }), [others.id], "a word written with 'sz' is no ß-word");

    const folded = (await search({ q: 'baeume', pondId: pond.id })).items[1]!;
    assert.equal(marked(folded.snippet), 'Im Garten stehen alte [Bäume].');
    assert.equal(folded.match, 'fulltext');
    const back = (await search({ q: 'größe', pondId: pond.id })).items[1]!;
    assert.equal(marked(back.snippet), 'Die [Groesse] zaehlt.');
    const [asTyped, sharpFolded] = (await search({ q: 'strasse', pondId: pond.id })).items;
    assert.equal(marked(asTyped!.snippet), 'Die [Strasse] ist kurz.');
    assert.equal(marked(sharpFolded!.snippet), 'Die [Straße] ist lang.', 'ß marked, and given back as written');
    assert.equal(sharpFolded!.match, 'fulltext');
    const [sharpAsTyped, doubledFolded] = (await search({ q: 'straße', pondId: pond.id })).items;
    assert.equal(marked(sharpAsTyped!.snippet), 'Die [Straße] ist lang.');
    assert.equal(marked(doubledFolded!.snippet), 'Die [Strasse] ist kurz.');
  });

  test('ß in titles: found and highlighted either way, ẞ too; the exact spelling ranks first', async () => {
    const pond = await cast.seedTeamPond();
    const sharp = await createPage(pond.id, 'Fußweg am Teich', 'Ein Weg.\n');
    const doubled = await createPage(pond.id, 'Fussweg im Park', 'Noch ein Weg.\n');
    const capital = await createPage(pond.id, 'FUẞWEG', 'Ein dritter Weg.\n');
    const bySharp = await search({ q: 'fußweg', pondId: pond.id });
    assert.deepEqual(bySharp.items.map((hit) => hit.id).slice(2), [doubled.id]);
    assert.deepEqual(bySharp.items.map((hit) => hit.id).slice(0, 2).sort(), [sharp.id, capital.id].sort());
    assert.deepEqual(bySharp.items.map((hit) => marked(hit.title)).sort(), ['[FUẞWEG]', '[Fussweg] im Park', '[Fußweg] am Teich']);
    const byDoubled = await search({ q: 'Fussweg', pondId: pond.id });
    assert.equal(byDoubled.items[0]!.id, doubled.id);
    assert.deepEqual(byDoubled.items.map((hit) => marked(hit.title)).slice(1).sort(), ['[FUẞWEG]', '[Fußweg] am Teich']);
  });

  test('a vector from before migration 0013 (ß as ss) is found by either spelling; the reindex puts the spellings in order', async () => {
    const pond = await cast.seedTeamPond();
    const sharp = await createPage(pond.id, 'Alt', 'Die Maßeinheit.\n');
    const doubled = await createPage(pond.id, 'Neu', 'Die Masseinheit.\n');
    const sequelize = cast.instance.services.sequelize;
    // What the save wrote before: the text straight into the configuration, which folds ß to ss.
    await sequelize.query(
      `UPDATE pages p SET search_head = setweight(to_tsvector('dt_search', p.title), 'A'),
              search_vector = setweight(to_tsvector('dt_search', p.title), 'A') || setweight(to_tsvector('dt_search', c.plain_text), 'C')
         FROM page_contents c WHERE c.page_id = p.id AND p.id = :id`,
      { replacements: { id: sharp.id } },
    );
    assert.deepEqual((await ids({ q: 'Maßeinheit', pondId: pond.id })).sort(), [sharp.id, doubled.id].sort(), 'found, through its transliteration');
    assert.deepEqual((await ids({ q: 'Masseinheit', pondId: pond.id })).sort(), [sharp.id, doubled.id].sort());
    assert.equal(marked((await search({ q: 'Maßeinheit', pondId: pond.id })).items.find((hit) => hit.id === sharp.id)!.snippet), 'Die [Maßeinheit].');
    await reindexAllLivePages(sequelize);
    assert.deepEqual(await ids({ q: 'Maßeinheit', pondId: pond.id }), [sharp.id, doubled.id]);
    assert.deepEqual(await ids({ q: 'Masseinheit', pondId: pond.id }), [doubled.id, sharp.id]);
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
    assert.deepEqual(await ids({ q: 'bäume -muehle', pondId: pond.id }), [trees.id], 'also where the found word is spelled as typed');
    assert.deepEqual(await ids({ q: '"hohe baeume"', pondId: pond.id }), [trees.id], 'a phrase with the other spelling');
    const partial = await search({ q: 'baeum', pondId: pond.id });
    assert.deepEqual(partial.items.map((hit) => hit.id).sort(), [trees.id, both.id].sort());
    assert.ok(partial.items.every((hit) => hit.match === 'substring'));
  });

  test('ß and ss: exclusions and phrases know both; the substring fallback finds both from either part', async () => {
    const pond = await cast.seedTeamPond();
    const sharp = await createPage(pond.id, 'Ort', 'Die große Straße zum Hafen.\n');
    const doubled = await createPage(pond.id, 'Platz', 'Die grosse Strasse zum Markt.\n');
    const other = await createPage(pond.id, 'Feld', 'Ein Hafen ohne Weg.\n');
    assert.deepEqual(await ids({ q: 'hafen -strasse', pondId: pond.id }), [other.id], '-strasse keeps out Straße');
    assert.deepEqual(await ids({ q: 'hafen -"große straße"', pondId: pond.id }), [other.id], 'an excluded phrase in the other spelling');
    assert.deepEqual(await ids({ q: '"grosse strasse"', pondId: pond.id }), [doubled.id, sharp.id], 'a phrase: as typed, then the other spelling');
    assert.deepEqual(await ids({ q: '"große straße"', pondId: pond.id }), [sharp.id, doubled.id]);
    for (const part of ['straß', 'stras', 'strass', 'asse', 'sse']) {
      const found = await search({ q: part, pondId: pond.id });
      assert.deepEqual(found.items.map((hit) => hit.id).sort(), [sharp.id, doubled.id].sort(), part);
      assert.ok(found.items.every((hit) => hit.match === 'substring'), part);
    }
    const highlighted = await search({ q: 'straß', pondId: pond.id });
    assert.deepEqual(highlighted.items.map((hit) => marked(hit.snippet)).sort(), ['Die grosse [Strasse] zum Markt.', 'Die große [Straße] zum Hafen.']);
    assert.deepEqual(await ids({ q: 'stras -hafen', pondId: pond.id }), [doubled.id], 'an exclusion in the fallback');
    assert.deepEqual(await ids({ q: 'stras -straße', pondId: pond.id }), [], 'excluded in either spelling, in the fallback too');
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
