/** The admin quota field: whole seats, MB/GB turned into whole bytes, and refusals named. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amountToValue, valueToAmount } from './quotaAmounts.ts';

test('seats are whole numbers of at least 0', () => {
  assert.deepEqual(amountToValue('editors_per_pond', ' 12 ', 'MB'), { value: 12 });
  assert.deepEqual(amountToValue('readers_per_pond', '0', 'MB'), { value: 0 });
  assert.deepEqual(amountToValue('readers_per_pond', '2,5', 'MB'), { problem: 'notWhole' });
  assert.deepEqual(amountToValue('readers_per_pond', '-1', 'MB'), { problem: 'negative' });
  assert.deepEqual(amountToValue('readers_per_pond', '', 'MB'), { problem: 'required' });
  assert.deepEqual(amountToValue('readers_per_pond', 'zehn', 'MB'), { problem: 'notNumber' });
  assert.deepEqual(amountToValue('readers_per_pond', '1e3', 'MB'), { problem: 'notNumber' });
});

test('bytes are entered in MB or GB, with a comma or a point', () => {
  assert.deepEqual(amountToValue('storage_bytes', '5', 'GB'), { value: 5 * 1024 ** 3 });
  assert.deepEqual(amountToValue('max_file_bytes', '1,5', 'MB'), { value: 1.5 * 1024 ** 2 });
  assert.deepEqual(amountToValue('max_file_bytes', '0.25', 'MB'), { value: 262_144 });
  assert.deepEqual(amountToValue('storage_bytes', '99999999999', 'GB'), { problem: 'tooLarge' });
});

test('a stored value starts the field in GB when whole, else in MB', () => {
  assert.deepEqual(valueToAmount('storage_bytes', 5 * 1024 ** 3), { text: '5', unit: 'GB' });
  assert.deepEqual(valueToAmount('max_file_bytes', 50 * 1024 ** 2), { text: '50', unit: 'MB' });
  // Small values keep enough decimals to give the same bytes back.
  const small = valueToAmount('max_file_bytes', 1000);
  assert.deepEqual(amountToValue('max_file_bytes', small.text, small.unit), { value: 1000 });
  assert.deepEqual(valueToAmount('max_file_bytes', 1.5 * 1024 ** 2, true), { text: '1,5', unit: 'MB' });
  assert.deepEqual(valueToAmount('max_file_bytes', 1.5 * 1024 ** 3), { text: '1536', unit: 'MB' });
  assert.deepEqual(valueToAmount('editors_per_pond', 7), { text: '7', unit: 'MB' });
  assert.deepEqual(valueToAmount('editors_per_pond', null), { text: '', unit: 'MB' });
});
