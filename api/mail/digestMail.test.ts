/**
 * The digest mail's rendering, without a database: both catalogues complete and alike, actor
 * lists, the grouping order (ponds by name, pages by title, changes before comments before
 * mentions), singular and plural, and values escaped in the HTML part only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestTextsDe } from '../i18n/digestTexts.de.ts';
import { digestTextsEn, type DigestTextKey } from '../i18n/digestTexts.en.ts';
import { actorList, groupDigestItems, renderDigestMail, type DigestItem } from './digestMail.ts';

test('both catalogues of digest texts have the same keys and placeholders, each translated', () => {
  assert.deepEqual(Object.keys(digestTextsDe).sort(), Object.keys(digestTextsEn).sort());
  const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
  for (const [key, english] of Object.entries(digestTextsEn)) {
    const german = digestTextsDe[key as DigestTextKey];
    assert.ok(english.trim() && german.trim(), key);
    assert.notEqual(german, english, `${key}: the German text is the English one`);
    assert.deepEqual(placeholders(german), placeholders(english), `${key}: the same placeholders in both languages`);
  }
});

test('actor lists name up to three people, then count the rest', () => {
  assert.equal(actorList([], 'en'), '');
  assert.equal(actorList(['Ada'], 'en'), 'Ada');
  assert.equal(actorList(['Ada', 'Bob'], 'en'), 'Ada and Bob');
  assert.equal(actorList(['Ada', 'Bob', 'Cy'], 'de'), 'Ada, Bob und Cy');
  assert.equal(actorList(['Ada', 'Bob', 'Cy', 'Dee', 'Eli'], 'en'), 'Ada, Bob, Cy and 2 more');
  assert.equal(actorList(['Ada', 'Bob', 'Cy', 'Dee'], 'de'), 'Ada, Bob, Cy und 1 weiteren', 'dative: every list follows "von"');
});

const item = (pond: string, page: string, entry: DigestItem['entry']): DigestItem => ({
  pondId: `pond-${pond}`,
  pondName: pond,
  pageId: `page-${pond}-${page}`,
  pageTitle: page,
  pageUrl: `https://teich.example/${pond.toLowerCase()}/${page.toLowerCase()}`,
  entry,
});

test('ponds by name, pages by title, and on a page changes, then comments, then mentions', () => {
  const grouped = groupDigestItems(
    [
      item('Zoo', 'Otter', { type: 'mentioned', actors: ['Ada'], changeCount: 0, commentCount: 0 }),
      item('Äcker', 'Weizen', { type: 'comment', actors: [], changeCount: 0, commentCount: 1 }),
      item('Zoo', 'Otter', { type: 'page_changed', actors: [], changeCount: 2, commentCount: 0 }),
      item('Zoo', 'Biber', { type: 'comment', actors: ['Bob'], changeCount: 0, commentCount: 4 }),
      item('Zoo', 'Otter', { type: 'comment', actors: [], changeCount: 0, commentCount: 1 }),
    ],
    'de',
  );
  assert.deepEqual(
    grouped.map((pond) => [pond.name, pond.pages.map((page) => [page.title, page.entries.map((entry) => entry.type)])]),
    [
      ['Äcker', [['Weizen', ['comment']]]],
      ['Zoo', [['Biber', ['comment']], ['Otter', ['page_changed', 'comment', 'mentioned']]]],
    ],
  );
});

test('one page and many: subject and lines in the singular and the plural; HTML escapes, text does not', () => {
  const input = {
    displayName: 'Eve <admin>',
    instanceName: 'Teich & Co',
    frequency: 'daily' as const,
    settingsUrl: 'https://teich.example/settings',
    unsubscribeUrl: 'https://teich.example/api/v1/unsubscribe?token=abc.def',
  };
  const one = renderDigestMail({ ...input, ponds: groupDigestItems([item('Pond', 'Page <1>', { type: 'page_changed', actors: ['Ada'], changeCount: 1, commentCount: 0, versionLabel: 'v<2>' })], 'en') }, 'en');
  assert.equal(one.subject, 'News on 1 page in Teich & Co');
  assert.ok(one.text.includes('Hello Eve <admin>,'));
  assert.ok(one.text.includes('Page <1>\nhttps://teich.example/pond/page <1>'));
  assert.ok(one.text.includes('- Changed once by Ada (latest version: “v<2>”)'));
  assert.ok(one.text.includes('You get this summary at most once a day while there is news.'));
  assert.ok(one.html.includes('Hello Eve &#60;admin&#62;,'));
  assert.ok(one.html.includes('>Page &#60;1&#62;</a>'));
  assert.ok(!one.html.includes('<admin>') && !one.html.includes('v<2>'));
  assert.deepEqual(one.headers, {
    'List-Unsubscribe': '<https://teich.example/api/v1/unsubscribe?token=abc.def>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    'Auto-Submitted': 'auto-generated',
  });

  const many = renderDigestMail(
    {
      ...input,
      ponds: groupDigestItems(
        [
          item('Pond', 'A', { type: 'comment', actors: ['Ada'], changeCount: 0, commentCount: 1, commentExcerpt: 'Nice' }),
          item('Pond', 'B', { type: 'page_changed', actors: ['Ada', 'Bob'], changeCount: 5, commentCount: 0 }),
        ],
        'de',
      ),
    },
    'de',
  );
  assert.equal(many.subject, 'Neues auf 2 Seiten in Teich & Co');
  assert.ok(many.text.includes('- 1 neuer Kommentar von Ada\n  „Nice“'));
  assert.ok(many.text.includes('- 5-mal geändert von Ada und Bob'));
  assert.ok(many.text.includes('höchstens einmal am Tag'));
});
