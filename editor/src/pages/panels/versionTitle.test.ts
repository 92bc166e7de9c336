import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from '../../i18n/translator.ts';
import type { VersionView } from './panelViews.ts';
import { versionTitle } from './versionTitle.ts';

const person = (displayName: string) => ({ id: displayName.toLowerCase(), displayName });
const version = (extra: Partial<VersionView>): VersionView => ({
  id: 'v',
  pageId: 'p',
  trigger: 'auto',
  label: null,
  createdBy: null,
  contributors: [],
  createdAt: '2026-12-02T14:05:00Z',
  ...extra,
});
const now = new Date('2026-12-03T09:00:00Z');
const en = { t: createTranslator('en'), locale: 'en' as const, now, timeZone: 'UTC' };
const de = { t: createTranslator('de'), locale: 'de' as const, now, timeZone: 'UTC' };

test('an unnamed version is its time and its contributors, two named and the rest counted', () => {
  assert.equal(versionTitle(version({ contributors: [person('Vera'), person('Tom')] }), en).text, '2 Dec, 14:05 · Vera, Tom');
  assert.equal(versionTitle(version({ contributors: [person('Vera'), person('Tom'), person('Ann'), person('Lu')] }), en).text, '2 Dec, 14:05 · Vera, Tom +2');
  assert.equal(versionTitle(version({ contributors: [person('Vera'), person('Tom'), person('Ann')] }), de).text, '2. Dez., 14:05 · Vera, Tom +1');
  const parts = versionTitle(version({ contributors: [person('Vera')] }), en);
  assert.deepEqual([parts.label, parts.time, parts.people], [null, '2 Dec, 14:05', 'Vera']);
});

test('without contributors the creator is named; with nobody known, the time alone', () => {
  assert.equal(versionTitle(version({ trigger: 'MANUAL', createdBy: person('Ida') }), en).text, '2 Dec, 14:05 · Ida');
  assert.equal(versionTitle(version({}), en).text, '2 Dec, 14:05');
});

test('two versions of the same page differ in their titles by time', () => {
  const first = versionTitle(version({ contributors: [person('Vera')] }), en).text;
  const second = versionTitle(version({ contributors: [person('Vera')], createdAt: '2026-12-02T14:35:00Z' }), en).text;
  assert.notEqual(first, second);
});

test('a named version keeps its name; a version of another year shows the year', () => {
  const named = versionTitle(version({ label: 'Before the vote', contributors: [person('Vera')] }), en);
  assert.equal(named.label, 'Before the vote');
  assert.equal(named.text, 'Before the vote (2 Dec, 14:05)');
  assert.equal(versionTitle(version({ createdAt: '2025-03-01T08:00:00Z' }), en).time, '1 Mar 2025, 08:00');
  assert.equal(versionTitle(version({ createdAt: '2025-03-01T08:00:00Z' }), de).time, '1. März 2025, 08:00');
});
