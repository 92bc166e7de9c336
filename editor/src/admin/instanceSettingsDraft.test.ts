import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from '../i18n/translator.ts';
import { draftOf, extensionsOf, GIB, MIB, patchOf, settingsKeyOfPath, type InstanceSettings } from './instanceSettingsDraft.ts';

const t = createTranslator('en');
const SAVED: InstanceSettings = {
  'instance.name': 'Dorfteich',
  'instance.baseUrl': null,
  'instance.defaultLocale': 'en',
  'registration.mode': 'closed',
  'trash.retentionDays': 30,
  'conversion.payloadRetentionDays': 30,
  'upload.allowedExtensions': ['pdf', 'zip'],
  'upload.svgPolicy': 'sanitize',
  'quota.editors_per_pond': 100,
  'quota.readers_per_pond': null,
  'quota.storage_bytes': 5 * GIB,
  'quota.max_file_bytes': 50 * MIB,
};

test('an untouched draft patches nothing; sizes show in GiB and MiB, null as unlimited', () => {
  const draft = draftOf(SAVED);
  assert.equal(draft.quotas['quota.storage_bytes'].amount, '5');
  assert.equal(draft.quotas['quota.max_file_bytes'].amount, '50');
  assert.deepEqual(draft.quotas['quota.readers_per_pond'], { unlimited: true, amount: '' });
  assert.equal(draft.extensions, 'pdf, zip');
  assert.deepEqual(patchOf(draft, SAVED, t), { patch: {}, problems: {} });
});

test('only the changed keys are patched, in the API units', () => {
  const draft = draftOf(SAVED);
  draft.name = '  Unser Teich ';
  draft.registration = 'open';
  draft.quotas['quota.storage_bytes'].amount = '2,5';
  draft.quotas['quota.editors_per_pond'].unlimited = true;
  draft.quotas['quota.readers_per_pond'] = { unlimited: false, amount: '40' };
  draft.extensions = '.PDF zip;docx';
  assert.deepEqual(patchOf(draft, SAVED, t), {
    patch: {
      'instance.name': 'Unser Teich',
      'registration.mode': 'open',
      'upload.allowedExtensions': ['pdf', 'zip', 'docx'],
      'quota.editors_per_pond': null,
      'quota.readers_per_pond': 40,
      'quota.storage_bytes': 2.5 * GIB,
    },
    problems: {},
  });
});

test('a blank address is null (each request\'s own); a bad one, days, seats and sizes are named at their fields', () => {
  const draft = draftOf({ ...SAVED, 'instance.baseUrl': 'https://wiki.example.org' });
  draft.baseUrl = ' ';
  assert.deepEqual(patchOf(draft, { ...SAVED, 'instance.baseUrl': 'https://wiki.example.org' }, t).patch, { 'instance.baseUrl': null });

  const bad = draftOf(SAVED);
  bad.name = '';
  bad.baseUrl = 'wiki.example.org';
  bad.trashDays = '0';
  bad.payloadDays = '1.5';
  bad.extensions = 'pdf, tar.gz';
  bad.quotas['quota.editors_per_pond'].amount = '3.5';
  bad.quotas['quota.max_file_bytes'].amount = 'lots';
  const { problems } = patchOf(bad, SAVED, t);
  assert.deepEqual(Object.keys(problems).sort(), [
    'conversion.payloadRetentionDays',
    'instance.baseUrl',
    'instance.name',
    'quota.editors_per_pond',
    'quota.max_file_bytes',
    'trash.retentionDays',
    'upload.allowedExtensions',
  ]);
  assert.equal(problems['upload.allowedExtensions'], t('adminSettings.error.extension', { extension: 'tar.gz' }));
  assert.equal(problems['trash.retentionDays'], t('adminSettings.error.days'));
});

test('extensions: separators, dots, capitals and repeats forgiven', () => {
  assert.deepEqual(extensionsOf(' .Pdf,pdf  ODT;;md '), ['pdf', 'odt', 'md']);
  assert.deepEqual(extensionsOf(''), []);
});

test("the API's deeper field paths name the form's field", () => {
  assert.equal(settingsKeyOfPath('upload.allowedExtensions.3'), 'upload.allowedExtensions');
  assert.equal(settingsKeyOfPath('quota.storage_bytes'), 'quota.storage_bytes');
  assert.equal(settingsKeyOfPath('home.content'), null);
});
