import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from '../i18n/translator.ts';
import { limitSourceKey, orphanReasonKey, usageInWords } from './pondFiles.ts';

test('the usage line: used of the limit and the count, or no limit; in both languages', () => {
  const usage = { usedBytes: 2.8 * 1024 * 1024, fileCount: 12, limitBytes: 5 * 1024 ** 3, limitSource: 'instance' as const };
  assert.equal(usageInWords(usage, 'en', createTranslator('en')), '2.8 MB of 5 GB used · 12 files');
  assert.equal(usageInWords(usage, 'de', createTranslator('de')), '2,8 MB von 5 GB belegt · 12 Dateien');
  assert.equal(usageInWords({ ...usage, fileCount: 1, limitBytes: null }, 'en', createTranslator('en')), '2.8 MB used, no limit · 1 file');
  assert.equal(limitSourceKey({ ...usage, limitSource: 'pond' }), 'pondFiles.limitSource.pond');
});

test('an orphan says why: not saved into its page yet, or no longer in its text', () => {
  assert.equal(orphanReasonKey({ orphan: false, claimed: true }), null);
  assert.equal(orphanReasonKey({ orphan: true, claimed: false }), 'pondFiles.orphanUnsaved');
  assert.equal(orphanReasonKey({ orphan: true, claimed: true }), 'pondFiles.orphanLeftText');
});
