/**
 * User-visible texts live in the catalogues only: both languages of the API's own texts,
 * a guard that no module outside api/i18n carries translations of its own, and a German
 * caller getting German wording for rules zod reports without a message of ours.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { apiTextsDe } from './apiTexts.de.ts';
import { apiTextsEn } from './apiTexts.en.ts';
import { mailTextsDe } from './mailTexts.de.ts';
import { mailTextsEn } from './mailTexts.en.ts';

const apiRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return name === 'i18n' || name === 'testing' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

test('both catalogues of API texts have the same keys, each translated', () => {
  assert.deepEqual(Object.keys(apiTextsDe).sort(), Object.keys(apiTextsEn).sort());
  for (const [key, english] of Object.entries(apiTextsEn)) {
    assert.ok(english.trim() && apiTextsDe[key as keyof typeof apiTextsEn].trim(), key);
    assert.notEqual(apiTextsDe[key as keyof typeof apiTextsEn], english, `${key}: the German text is the English one`);
  }
});

test('both catalogues of mail texts have the same keys and placeholders, each translated', () => {
  assert.deepEqual(Object.keys(mailTextsDe).sort(), Object.keys(mailTextsEn).sort());
  const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
  for (const [key, english] of Object.entries(mailTextsEn)) {
    const german = mailTextsDe[key as keyof typeof mailTextsEn];
    assert.ok(english.trim() && german.trim(), key);
    assert.notEqual(german, english, `${key}: the German text is the English one`);
    assert.deepEqual(placeholders(german), placeholders(english), `${key}: the same placeholders in both languages`);
  }
});

test('no API module outside api/i18n holds translated texts of its own', () => {
  // A per-locale table (`Record<Locale, …>`, `de: '…'`) or a choice between two literal texts (`de ? '…' : '…'`).
  const patterns = [/Record<Locale,/, /^\s*(de|en):\s*['"`]/m, /\bde \? ['"`]/];
  const offenders = sourceFiles(apiRoot)
    .filter((file) => patterns.some((pattern) => pattern.test(readFileSync(file, 'utf8'))))
    .map((file) => path.relative(apiRoot, file));
  assert.deepEqual(offenders, [], 'move these texts into api/i18n');
});

describe('field wording in the caller\'s language', () => {
  let instance: TestInstance;
  before(async () => {
    instance = await startTestInstance();
    await completeSetup(instance);
  });
  after(() => instance.close());

  test('a change without any field is refused in German for a German caller, in English otherwise', async () => {
    const { client, user } = await createVerifiedUser(instance);
    const pond = await seedSharedPond(user.id);
    const german = await client.patch(`/ponds/${pond.id}`, {}, { headers: { 'accept-language': 'de' } });
    assert.equal(german.status, 400, german.text);
    assert.deepEqual(german.body.error.details.fields, [{ path: '', code: 'custom', message: 'Ändere mindestens ein Feld.' }]);
    const english = await client.patch(`/ponds/${pond.id}`, {}, { headers: { 'accept-language': 'en' } });
    assert.equal(english.body.error.details.fields[0].message, 'Change at least one field.');
    const twoPlaces = await client.post(`/ponds/${pond.id}/pages`, { title: 'x', before: pond.id, index: 0 }, { headers: { 'accept-language': 'de' } });
    assert.equal(twoPlaces.status, 400, twoPlaces.text);
    assert.deepEqual(twoPlaces.body.error.details.fields, [{ path: 'before', code: 'custom', message: 'Gib höchstens eines von before, after und index an.' }]);
  });
});
