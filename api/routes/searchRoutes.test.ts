/**
 * GET /search through HTTP, what any reader of a pond sees: case and diacritic folding (German,
 * English), the ranking tiers (title > label > body, full text before the substring fallback),
 * the websearch syntax (AND, "phrase", -exclusion, or) and queries that parse to nothing, the
 * substring fallback, snippets and highlights, the vectors following label and title changes,
 * cursor pagination across tiers, and refusals. Permissions, the trash and the pond and label
 * filters are in searchPermissions.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HIT_END, HIT_START, type SearchHit } from '../search/searchEngine.ts';
import { assertError, assertFieldError, createLabel, MISSING_UUID, putLabels, usePondCast } from '../testing/pondTestSetup.ts';
import { searchPath, type SearchParams } from '../testing/searchRequests.ts';
import type { TestClient } from '../testing/testClient.ts';

type Hit = SearchHit;

/** `[text]` for every highlighted part, so expectations read plainly. */
function marked(text: string): string {
  return text.replaceAll(HIT_START, '[').replaceAll(HIT_END, ']');
}

describe('GET /search', () => {
  const cast = usePondCast();

  async function createPage(pondId: string, title: string, markdown?: string) {
    const response = await cast.editor.client.post(`/ponds/${pondId}/pages`, { title, ...(markdown === undefined ? {} : { markdown }) });
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; title: string; slug: string };
  }


  async function search(params: SearchParams, client: TestClient = cast.reader.client): Promise<{ items: Hit[]; nextCursor: string | null }> {
    const response = await client.get(searchPath(params));
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** The ids of the hits, in order. */
  async function ids(params: SearchParams, client?: TestClient): Promise<string[]> {
    return (await search(params, client)).items.map((hit) => hit.id);
  }

  const sortedIds = (...pages: { id: string }[]) => pages.map((page) => page.id).sort();

  describe('folding and ranking', () => {
    test('German umlauts and ß fold both ways, in any case', async () => {
      const pond = await cast.seedTeamPond();
      const trees = await createPage(pond.id, 'Garten', 'Im Garten stehen Bäume.\n');
      const loud = await createPage(pond.id, 'Laut', 'ALTE BÄUME WACHSEN.\n');
      const sharp = await createPage(pond.id, 'Weg', 'Die Straße ist lang.\n');
      const plain = await createPage(pond.id, 'Gasse', 'Die Strasse ist kurz.\n');
      await createPage(pond.id, 'Anderes', 'Baum und Stra und Bau.\n');
      for (const q of ['Baume', 'bäume', 'BAUME', 'BÄUME']) {
        assert.deepEqual((await ids({ q, pondId: pond.id })).sort(), sortedIds(trees, loud), q);
      }
      for (const q of ['Strasse', 'straße', 'STRASSE']) assert.deepEqual((await ids({ q, pondId: pond.id })).sort(), sortedIds(sharp, plain), q);
      const hit = (await search({ q: 'strasse', pondId: pond.id })).items.find((item) => item.id === sharp.id)!;
      assert.equal(marked(hit.snippet), 'Die [Straße] ist lang.', 'the original word is highlighted');
      assert.equal(hit.match, 'fulltext');
    });

    test("English accents fold: 'cafe' finds 'café' and 'CAFÉ', 'naive' finds 'naïve'", async () => {
      const pond = await cast.seedTeamPond();
      const accented = await createPage(pond.id, 'Morning', 'Coffee at the café.\n');
      const upper = await createPage(pond.id, 'Sign', 'CAFÉ OPEN\n');
      const naive = await createPage(pond.id, 'Naivety', 'A naïve approach.\n');
      assert.deepEqual((await ids({ q: 'cafe', pondId: pond.id })).sort(), sortedIds(accented, upper));
      assert.deepEqual((await ids({ q: 'Café', pondId: pond.id })).sort(), sortedIds(accented, upper));
      assert.deepEqual(await ids({ q: 'naive', pondId: pond.id }), [naive.id]);
    });

    test('title hits rank above label hits, and both above body hits', async () => {
      const pond = await cast.seedTeamPond();
      const label = await createLabel(cast.editor.client, pond.id, 'Kormoran');
      const bodies = [];
      const labelled = [];
      const titled = [];
      // Three of each, so that no order of ids gives the expected order by chance.
      for (const n of ['eins', 'zwei', 'drei']) {
        bodies.push(await createPage(pond.id, `Vogelschau ${n}`, 'Am Ufer sitzt ein Kormoran.\n'));
        const page = await createPage(pond.id, `Wasservogel ${n}`, 'Nichts davon.\n');
        assert.equal((await putLabels(cast.editor.client, page.id, [label.id])).status, 200);
        labelled.push(page);
        titled.push(await createPage(pond.id, `Kormoran ${n}`, 'Ein großer Vogel.\n'));
      }
      const result = await search({ q: 'kormoran', pondId: pond.id });
      const found = result.items.map((hit) => hit.id);
      assert.deepEqual([found.slice(0, 3).sort(), found.slice(3, 6).sort(), found.slice(6).sort()], [sortedIds(...titled), sortedIds(...labelled), sortedIds(...bodies)]);
      assert.ok(result.items.every((hit) => hit.match === 'fulltext'));
      assert.equal(marked(result.items[0]!.title).startsWith('[Kormoran] '), true);
      const bodyHit = result.items[8]!;
      assert.equal(marked(bodyHit.snippet), 'Am Ufer sitzt ein [Kormoran].');
      assert.ok(bodyHit.title.startsWith('Vogelschau ') && !bodyHit.title.includes(HIT_START), 'a title without the word has no marks');
    });

    test('a whole-word (full-text) match ranks before a substring match, even one in a title', async () => {
      const pond = await cast.seedTeamPond();
      const longer = await createPage(pond.id, 'Quorxtal', 'Der Quorxtal ist tief.\n');
      const word = await createPage(pond.id, 'Notiz', 'Hier steht Quorx im Text.\n');
      const both = await createPage(pond.id, 'Beides', 'Quorx und Quorxtal zugleich.\n');
      const result = await search({ q: 'quorx', pondId: pond.id });
      assert.deepEqual(result.items.map((hit) => [hit.id, hit.match]).slice(2), [[longer.id, 'substring']]);
      assert.deepEqual(result.items.slice(0, 2).map((hit) => hit.id).sort(), sortedIds(word, both));
      assert.ok(result.items.slice(0, 2).every((hit) => hit.match === 'fulltext'));
      assert.equal(result.items.length, 3, 'a page found by full text is not repeated by the fallback');
      assert.equal(marked(result.items[2]!.title), '[Quorxtal]', 'the substring hit is highlighted as the whole word');
    });
  });

  describe('query syntax', () => {
    async function syntaxPond() {
      const pond = await cast.seedTeamPond();
      const pages = {
        both: await createPage(pond.id, 'Eins', 'Mispel und Holunder im Garten.\n'),
        mispel: await createPage(pond.id, 'Zwei', 'Nur eine Mispel.\n'),
        holunder: await createPage(pond.id, 'Drei', 'Nur ein Holunder.\n'),
        phrase: await createPage(pond.id, 'Vier', 'Ein Mispel Holunder Strauch.\n'),
        reversed: await createPage(pond.id, 'Fünf', 'Ein Holunder Mispel Strauch.\n'),
      };
      return { pond, pages };
    }

    test('two words are AND-ed: a page with only one of them is not found', async () => {
      const { pond, pages } = await syntaxPond();
      assert.deepEqual((await ids({ q: 'mispel holunder', pondId: pond.id })).sort(), sortedIds(pages.both, pages.phrase, pages.reversed));
    });

    test('"a phrase" needs the words adjacent and in order', async () => {
      const { pond, pages } = await syntaxPond();
      assert.deepEqual(await ids({ q: '"mispel holunder"', pondId: pond.id }), [pages.phrase.id]);
      assert.deepEqual(await ids({ q: '"Holunder Mispel"', pondId: pond.id }), [pages.reversed.id]);
      const hit = (await search({ q: '"mispel holunder"', pondId: pond.id })).items[0]!;
      assert.equal(marked(hit.snippet), 'Ein [Mispel] [Holunder] Strauch.');
    });

    test('-word excludes the pages containing it', async () => {
      const { pond, pages } = await syntaxPond();
      assert.deepEqual(await ids({ q: 'mispel -holunder', pondId: pond.id }), [pages.mispel.id]);
      assert.deepEqual(await ids({ q: 'holunder -mispel', pondId: pond.id }), [pages.holunder.id]);
    });

    test('-word excludes a page whose title holds the other word and whose body holds the excluded one', async () => {
      const pond = await cast.seedTeamPond();
      const excluded = await createPage(pond.id, 'Schlehe', 'Daneben wächst Weißdorn.\n');
      const kept = await createPage(pond.id, 'Schlehe am Weg', 'Allein.\n');
      const labelled = await createPage(pond.id, 'Schlehe im Hof', 'Allein.\n');
      const label = await createLabel(cast.editor.client, pond.id, 'Weißdorn');
      assert.equal((await putLabels(cast.editor.client, labelled.id, [label.id])).status, 200);
      const result = await ids({ q: 'schlehe -weissdorn', pondId: pond.id });
      assert.ok(!result.includes(labelled.id), 'excluded through its label');
      assert.ok(!result.includes(excluded.id), 'excluded through its body');
      assert.deepEqual(result, [kept.id]);
      // A query of an exclusion alone never answers pages holding the excluded word either.
      const alone = await ids({ q: '-weissdorn', pondId: pond.id });
      assert.ok(!alone.includes(excluded.id) && !alone.includes(labelled.id), 'pages with the excluded word');
    });

    test('`or` between words finds pages with either', async () => {
      const { pond, pages } = await syntaxPond();
      assert.deepEqual((await ids({ q: 'mispel or holunder', pondId: pond.id })).sort(), sortedIds(...Object.values(pages)));
      assert.deepEqual((await ids({ q: 'Nur or Strauch', pondId: pond.id })).sort(), sortedIds(pages.mispel, pages.holunder, pages.phrase, pages.reversed));
    });

    test('queries that parse to nothing answer 200 with no items', async () => {
      const { pond } = await syntaxPond();
      assert.ok((await ids({ q: 'mispel' })).length > 0, 'the caller can find pages at all');
      for (const q of ['', '!!!', '""', '"', '-', 'or', '&', '|', '(', ':*', "'", '\\', '   ', HIT_START + HIT_END]) {
        for (const params of [{ q }, { q, pondId: pond.id }] as SearchParams[]) assert.deepEqual(await search(params), { items: [], nextCursor: null }, JSON.stringify(q));
      }
      assert.deepEqual(await search({}), { items: [], nextCursor: null }, 'no q at all');
      // The text rule of every route: a NUL is refused, naming the field.
      assertFieldError(await cast.reader.client.get(searchPath({ q: 'mispel\u0000' })), 'query.q');
    });
  });

  describe('substring fallback', () => {
    test('finds a word by its start or by an infix, highlighting the whole word', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Wissensbasis des Teichs', 'Unsere Wissensbasis wächst.\n');
      const other = await createPage(pond.id, 'Andere Seite', 'Wissen allein ist etwas anderes.\n');
      const prefix = await search({ q: 'wiss', pondId: pond.id });
      assert.deepEqual(prefix.items.map((hit) => hit.id).sort(), sortedIds(page, other));
      assert.ok(prefix.items.every((hit) => hit.match === 'substring'));
      for (const q of ['ssens', 'WISSENSB', 'sbasi']) {
        const result = await search({ q, pondId: pond.id });
        assert.deepEqual(result.items.map((hit) => [hit.id, hit.match]), [[page.id, 'substring']], q);
      }
      const hit = (await search({ q: 'ssens', pondId: pond.id })).items[0]!;
      assert.equal(marked(hit.title), '[Wissensbasis] des Teichs');
      assert.equal(marked(hit.snippet), 'Unsere [Wissensbasis] wächst.');
      // 'wissen' is a whole word of the other page: full text first, then the fallback's.
      const mixed = await search({ q: 'wissen', pondId: pond.id });
      assert.deepEqual(mixed.items.map((item) => item.match), ['fulltext', 'substring']);
      assert.equal(mixed.items[1]!.id, page.id);
    });

    test('a one- or two-character query finds words starting with it', async () => {
      const pond = await cast.seedTeamPond();
      const latin = await createPage(pond.id, 'Qzibbel', 'Ein Qzibbel.\n');
      const cyrillic = await createPage(pond.id, 'Тетрадь', 'Жабель живёт здесь.\n');
      assert.deepEqual(await search({ q: 'qz', pondId: pond.id }).then((r) => r.items.map((hit) => [hit.id, hit.match])), [[latin.id, 'substring']]);
      assert.deepEqual(await search({ q: 'QZ', pondId: pond.id }).then((r) => r.items.map((hit) => hit.id)), [latin.id]);
      assert.deepEqual(await search({ q: 'ж', pondId: pond.id }).then((r) => r.items.map((hit) => [hit.id, hit.match])), [[cyrillic.id, 'substring']]);
      const hit = (await search({ q: 'q', pondId: pond.id })).items.find((item) => item.id === latin.id);
      assert.ok(hit, 'one Latin letter finds it too');
      assert.equal(marked(hit.title), '[Qzibbel]');
    });

    test('an exclusion applies to fallback results too', async () => {
      const pond = await cast.seedTeamPond();
      const kept = await createPage(pond.id, 'Eins', 'Die Zettelkastenmethode.\n');
      await createPage(pond.id, 'Zwei', 'Die Zettelkastenmethode im Ordner.\n');
      const compound = await createPage(pond.id, 'Drei', 'Zettelkastenmethode und Ordnerstruktur.\n');
      assert.equal((await ids({ q: 'zettelkast', pondId: pond.id })).length, 3);
      const result = await search({ q: 'zettelkast -ordner', pondId: pond.id });
      // 'Ordnerstruktur' is not the excluded word: only whole words are excluded.
      assert.deepEqual(result.items.map((hit) => hit.id).sort(), sortedIds(kept, compound));
      assert.deepEqual(result.items.map((hit) => hit.match), ['substring', 'substring']);
      assert.deepEqual(await ids({ q: 'zettelkast -ordner -DIE', pondId: pond.id }), [compound.id]);
    });
  });

  describe('snippets and highlights', () => {
    test('a hit at the very start or end of a long body is in the snippet', async () => {
      const pond = await cast.seedTeamPond();
      const filler = Array.from({ length: 300 }, (_, i) => `füllwort${i}`).join(' ');
      await createPage(pond.id, 'Lang', `Anfangswort ${filler} Schlusswort\n`);
      const start = (await search({ q: 'anfangswort', pondId: pond.id })).items[0]!;
      assert.ok(marked(start.snippet).startsWith('[Anfangswort] füllwort0 füllwort1'), start.snippet);
      const end = (await search({ q: 'schlusswort', pondId: pond.id })).items[0]!;
      assert.ok(marked(end.snippet).endsWith('füllwort298 füllwort299 [Schlusswort]'), end.snippet);
      for (const snippet of [start.snippet, end.snippet]) assert.ok(snippet.split(' ').length < 60, 'a snippet, not the body');
    });

    test('multi-byte neighbours stay whole around the marks', async () => {
      const pond = await cast.seedTeamPond();
      await createPage(pond.id, 'Zeichen', 'Ärger Zwollfisch naïve 🐟Quabbel🐟 und 日本 Grumpel 語 ok\n');
      const cases: [string, string][] = [
        ['zwollfisch', 'Ärger [Zwollfisch] naïve'],
        ['arger', '[Ärger] Zwollfisch'],
        ['naive', 'Zwollfisch [naïve] 🐟'],
        ['quabbel', '🐟[Quabbel]🐟'],
        ['grumpel', '日本 [Grumpel] 語'],
        ['日本', '[日本] Grumpel'],
      ];
      for (const [q, expected] of cases) {
        const hit = (await search({ q, pondId: pond.id })).items[0];
        assert.ok(hit, q);
        assert.ok(marked(hit.snippet).includes(expected), `${q}: ${marked(hit.snippet)}`);
        assert.ok(!hit.snippet.includes('\uFFFD'), 'no broken characters');
      }
    });

    test('sentinels in the stored title and body are stripped: only real hits are marked', async () => {
      const pond = await cast.seedTeamPond();
      await createPage(pond.id, `Glanz ${HIT_END}Flarp${HIT_START} Titel`, `Flarp ${HIT_START}fett${HIT_END} und ${HIT_END} Ende ${HIT_START}\n`);
      const hit = (await search({ q: 'flarp', pondId: pond.id })).items[0]!;
      assert.equal(marked(hit.title), 'Glanz [Flarp] Titel');
      assert.equal(marked(hit.snippet), '[Flarp] fett und Ende');
      const noHit = (await search({ q: 'ende', pondId: pond.id })).items[0]!;
      assert.equal(noHit.title, 'Glanz Flarp Titel', 'a title without a hit has no sentinels at all');
    });

    test('a hit carries its slug, its pond and its label chips (sorted by name)', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Etikettiert', 'Plinsenwort.\n');
      const zebra = await createLabel(cast.editor.client, pond.id, 'zebra', undefined, '#aa0000');
      const apfel = await createLabel(cast.editor.client, pond.id, 'Apfel', undefined, '#00bb00');
      assert.equal((await putLabels(cast.editor.client, page.id, [zebra.id, apfel.id])).status, 200);
      const [hit] = (await search({ q: 'plinsenwort' })).items;
      assert.deepEqual(hit, {
        id: page.id,
        title: 'Etikettiert',
        slug: page.slug,
        pond: { id: pond.id, slug: pond.slug, name: pond.name },
        labels: [
          { id: apfel.id, name: 'Apfel', color: '#00bb00' },
          { id: zebra.id, name: 'zebra', color: '#aa0000' },
        ],
        snippet: `${HIT_START}Plinsenwort${HIT_END}.`,
        match: 'fulltext',
      });
      const unlabelled = await createPage(pond.id, 'Ohne', 'Plinsenwort nochmal.\n');
      const bare = (await search({ q: 'plinsenwort' })).items.find((item) => item.id === unlabelled.id)!;
      assert.deepEqual(bare.labels, []);
    });
  });

  describe('vectors follow labels and titles', () => {
    test('renaming a label: the new name finds its pages, the old one no longer does', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Beobachtung', 'Notizen.\n');
      const label = await createLabel(cast.editor.client, pond.id, 'Rotkehlchen');
      assert.equal((await putLabels(cast.editor.client, page.id, [label.id])).status, 200);
      assert.deepEqual(await ids({ q: 'rotkehlchen' }), [page.id]);
      assert.equal((await cast.editor.client.patch(`/labels/${label.id}`, { name: 'Blaumeise' })).status, 200);
      assert.deepEqual(await ids({ q: 'blaumeise' }), [page.id]);
      assert.deepEqual(await ids({ q: 'rotkehlchen' }), []);
      assert.deepEqual((await search({ q: 'blaumeise' })).items[0]!.labels.map((chip) => chip.name), ['Blaumeise']);
    });

    test('assigning a label makes its name findable, unassigning and deleting it (or its parent) removes it', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Sichtung', 'Notizen.\n');
      const other = await createPage(pond.id, 'Sichtung zwei', 'Notizen.\n');
      const parent = await createLabel(cast.editor.client, pond.id, 'Singvogel');
      const child = await createLabel(cast.editor.client, pond.id, 'Zaunkoenig', parent.id);
      const amsel = await createLabel(cast.editor.client, pond.id, 'Amsel');
      assert.deepEqual(await ids({ q: 'amsel' }), []);
      assert.equal((await putLabels(cast.editor.client, page.id, [amsel.id])).status, 200);
      assert.deepEqual(await ids({ q: 'amsel' }), [page.id]);
      assert.equal((await putLabels(cast.editor.client, page.id, [])).status, 200);
      assert.deepEqual(await ids({ q: 'amsel' }), []);
      assert.equal((await putLabels(cast.editor.client, page.id, [amsel.id])).status, 200);
      assert.equal((await cast.editor.client.request('DELETE', `/labels/${amsel.id}`)).status, 204);
      assert.deepEqual(await ids({ q: 'amsel' }), []);

      assert.equal((await putLabels(cast.editor.client, other.id, [child.id])).status, 200);
      assert.deepEqual(await ids({ q: 'zaunkoenig' }), [other.id]);
      assert.equal((await cast.editor.client.request('DELETE', `/labels/${parent.id}`)).status, 204);
      assert.deepEqual(await ids({ q: 'zaunkoenig' }), [], 'the child label went with its parent');
    });

    test('a changed title is found by its new words, not its old ones', async () => {
      const pond = await cast.seedTeamPond();
      const page = await createPage(pond.id, 'Altertitel', 'Inhalt bleibt.\n');
      assert.equal((await cast.editor.client.patch(`/pages/${page.id}`, { title: 'Neutitel jetzt' })).status, 200);
      assert.deepEqual(await search({ q: 'neutitel' }).then((r) => r.items.map((hit) => [hit.id, marked(hit.title)])), [[page.id, '[Neutitel] jetzt']]);
      assert.deepEqual(await ids({ q: 'altertitel' }), []);
    });
  });

  describe('pagination', () => {
    test('a cursor walk returns every result once, in order, across the tier boundaries', async () => {
      const pond = await cast.seedTeamPond();
      const titles = [await createPage(pond.id, 'Pagwort eins'), await createPage(pond.id, 'Pagwort zwei'), await createPage(pond.id, 'Pagwort drei')];
      const bodies = [await createPage(pond.id, 'Vier', 'Ein Pagwort.\n'), await createPage(pond.id, 'Fünf', 'Ein Pagwort.\n')];
      const partial = [await createPage(pond.id, 'Sechs', 'Eine Pagwortliste.\n'), await createPage(pond.id, 'Sieben', 'Eine Pagwortliste.\n'), await createPage(pond.id, 'Acht', 'Eine Pagwortliste.\n')];
      // Equal ranks within each tier: the id decides.
      const expected = [...sortedIds(...titles), ...sortedIds(...bodies), ...sortedIds(...partial)];
      const all = await search({ q: 'pagwort', pondId: pond.id, limit: 50 });
      assert.deepEqual(all.items.map((hit) => hit.id), expected);
      assert.deepEqual(all.items.map((hit) => hit.match), [...Array(5).fill('fulltext'), ...Array(3).fill('substring')]);
      assert.equal(all.nextCursor, null);
      assert.deepEqual((await search({ q: 'pagwort', pondId: pond.id })).items.map((hit) => hit.id), expected, 'default limit 20');
      for (const limit of [1, 2, 3, 5, 7, 8]) {
        const walked: Hit[] = [];
        let cursor: string | null = null;
        let requests = 0;
        do {
          const page: { items: Hit[]; nextCursor: string | null } = await search({ q: 'pagwort', pondId: pond.id, limit, ...(cursor ? { cursor } : {}) });
          requests += 1;
          if (page.nextCursor !== null) assert.equal(page.items.length, limit, `limit ${limit}: a full page before a cursor`);
          walked.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor !== null && requests < 20);
        assert.deepEqual(walked.map((hit) => hit.id), expected, `limit ${limit}`);
        assert.deepEqual(walked.map((hit) => hit.match), all.items.map((hit) => hit.match), `limit ${limit}`);
        assert.equal(requests, Math.ceil(expected.length / limit), `limit ${limit}: the last page has no cursor`);
      }
    });
  });

  describe('refusals', () => {
    test('anonymous callers get 401', async () => {
      assertError(await cast.anonymous.get('/search?q=anything'), 401, 'unauthenticated');
      assertError(await cast.anonymous.get('/search'), 401, 'unauthenticated');
    });

    test('q longer than 500 characters, a limit outside 1–50 and a foreign cursor are 400', async () => {
      assert.equal((await cast.reader.client.get(searchPath({ q: 'a'.repeat(500) }))).status, 200);
      assertFieldError(await cast.reader.client.get(searchPath({ q: 'a'.repeat(501) })), 'query.q');
      for (const limit of ['0', '51', 'abc', '1.5', '-1', '']) assertFieldError(await cast.reader.client.get(searchPath({ q: 'x', limit })), 'query.limit');
      assert.equal((await cast.reader.client.get(searchPath({ q: 'x', limit: 50 }))).status, 200);
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const cursors = ['nonsense', encode([4, 0.5, MISSING_UUID]), encode([0, 'x', MISSING_UUID]), encode([0, 0.5, 'not-a-uuid']), encode([0, 0.5]), encode({ tier: 0 }), ''];
      // Ranks a Postgres real cannot hold reached the statement as a 500.
      cursors.push(encode([0, 1e308, MISSING_UUID]), encode([0, -1e308, MISSING_UUID]), encode([1, 1e-40, MISSING_UUID]), encode([2, 3.5e38, MISSING_UUID]));
      for (const cursor of cursors) assertFieldError(await cast.reader.client.get(searchPath({ q: 'x', cursor })), 'query.cursor');
      assert.equal((await cast.reader.client.get(searchPath({ q: 'x', cursor: encode([1, 0.5, MISSING_UUID]) }))).status, 200, 'a well-formed cursor is taken');
    });
  });
});
