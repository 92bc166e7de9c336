/**
 * Our wording for field problems through HTTP, in German and English: the reserved and the
 * malformed pond slug, the pond_admin grant rule, the subjectId rule of effective-permissions,
 * a label's colour and a label name with "/"; a field without our wording keeps zod's text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import type { TestClient, TestResponse } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

/** The only field problem of a 400 validation_failed answer. */
function onlyField(response: TestResponse): { path: string; code: string; message: string } {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.body.error.code, 'validation_failed', response.text);
  assert.equal(response.body.error.details.fields.length, 1, response.text);
  return response.body.error.details.fields[0];
}

describe('our field messages', () => {
  let instance: TestInstance;
  let client: TestClient;
  let pondId: string;

  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
    ({ client } = await createVerifiedUser(instance));
    const pond = await client.post('/ponds', { name: 'Wording pond' });
    assert.equal(pond.status, 201, pond.text);
    pondId = pond.body.id;
  });
  after(() => instance.close());

  const inLanguage = (language: 'de' | 'en') => ({ headers: { 'accept-language': language } });

  test('POST /ponds with a reserved slug answers our German and English text on field slug', async () => {
    const german = onlyField(await client.post('/ponds', { name: 'Reserved', slug: 'admin' }, inLanguage('de')));
    assert.deepEqual(german, { path: 'slug', code: 'custom', message: 'Diese Kurzadresse ist für die Website reserviert. Bitte wähle eine andere.' });
    const english = onlyField(await client.post('/ponds', { name: 'Reserved', slug: 'admin' }, inLanguage('en')));
    assert.deepEqual(english, { path: 'slug', code: 'custom', message: 'This slug is reserved for the site. Please choose another one.' });
  });

  const cases: { name: string; send: (language: 'de' | 'en') => Promise<TestResponse>; path: string; code: string; de: string; en: string }[] = [
    {
      name: 'a malformed pond slug',
      send: (language) => client.post('/ponds', { name: 'Malformed', slug: 'double--hyphen' }, inLanguage(language)),
      path: 'slug',
      code: 'invalid_format',
      de: 'Verwende nur Kleinbuchstaben (a–z), Ziffern und einzelne Bindestriche, nicht am Anfang oder Ende.',
      en: 'Use only lowercase letters (a–z), digits and single hyphens, not at the start or end.',
    },
    {
      name: 'a pond_admin grant below pond scope',
      send: (language) =>
        client.post(`/ponds/${pondId}/grants`, { subject: { type: 'user', id: SOME_ID }, role: 'pond_admin', scope: { type: 'label', id: SOME_ID }, effect: 'allow' }, inLanguage(language)),
      path: 'role',
      code: 'custom',
      de: 'Die Rolle Teich-Admin kannst du nur einer einzelnen Person für den ganzen Teich geben.',
      en: 'Pond admin can only be given to a single user, for the whole pond.',
    },
    {
      name: 'a subjectId for the public',
      send: (language) => client.get(`/ponds/${pondId}/effective-permissions?subjectType=public&subjectId=${SOME_ID}`, inLanguage(language)),
      path: 'query.subjectId',
      code: 'custom',
      de: 'Gib subjectId genau dann an, wenn subjectType user ist, und lass es sonst weg.',
      en: 'Give subjectId exactly when subjectType is user, and leave it out otherwise.',
    },
    {
      name: 'a label colour that is no #rrggbb',
      send: (language) => client.post(`/ponds/${pondId}/labels`, { name: 'Colourless', color: 'red' }, inLanguage(language)),
      path: 'color',
      code: 'invalid_format',
      de: 'Gib eine Farbe im Format #rrggbb an, etwa #3366cc.',
      en: 'Use a colour in the form #rrggbb, such as #3366cc.',
    },
    {
      name: 'a label name with a slash',
      send: (language) => client.post(`/ponds/${pondId}/labels`, { name: 'Projects/2025', color: '#336699' }, inLanguage(language)),
      path: 'name',
      code: 'invalid_format',
      de: 'Ein Name darf kein „/“ enthalten.',
      en: 'A name cannot contain “/”.',
    },
  ];

  for (const { name, send, path, code, de, en } of cases) {
    test(`${name} answers our text in German and English`, async () => {
      assert.deepEqual(onlyField(await send('de')), { path, code, message: de });
      assert.deepEqual(onlyField(await send('en')), { path, code, message: en });
    });
  }

  test('a pond name that is too long keeps zod’s localized text, not the label name wording', async () => {
    const german = onlyField(await client.post('/ponds', { name: 'n'.repeat(101) }, inLanguage('de')));
    const english = onlyField(await client.post('/ponds', { name: 'n'.repeat(101) }, inLanguage('en')));
    assert.equal(german.code, 'too_big');
    assert.equal(english.code, 'too_big');
    assert.match(german.message, /100/);
    assert.match(english.message, /100/);
    assert.notEqual(german.message, english.message);
    assert.doesNotMatch(`${german.message} ${english.message}`, /\//);
  });
});
