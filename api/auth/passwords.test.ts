/** Password hashing: scrypt with a per-hash salt, the cost kept in the stored string. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD_MIN_LENGTH, hashPassword, needsRehash, scryptOptions, verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { passwordSchema } from './accountSchemas.ts';

const COST = 10;

test('a hash is stored as scrypt$<log2 N>$<r>$<p>$<salt>$<hash> and never contains the password', async () => {
  const stored = await hashPassword('correct horse battery', COST);
  assert.match(stored, /^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.ok(!stored.includes('correct horse battery'));
});

test('the right password verifies, a wrong one does not', async () => {
  const stored = await hashPassword('correct horse battery', COST);
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterY', stored), false);
  assert.equal(await verifyPassword('', stored), false);
});

test('every hash gets its own salt', async () => {
  const first = await hashPassword('same password here', COST);
  const second = await hashPassword('same password here', COST);
  assert.notEqual(first, second);
  assert.equal(await verifyPassword('same password here', second), true);
});

test('a hash made with another cost still verifies (the cost is read from the stored string)', async () => {
  const stored = await hashPassword('raised cost later', 11);
  assert.equal(await verifyPassword('raised cost later', stored), true);
});

test('composed and decomposed spellings of the same password are equal (NFKC)', async () => {
  const stored = await hashPassword('caf\u00e9 au lait!', COST);
  assert.equal(await verifyPassword('cafe\u0301 au lait!', stored), true);
});

test('a stored value of another scheme or a truncated one never verifies', async () => {
  const stored = await hashPassword('correct horse battery', COST);
  assert.equal(await verifyPassword('correct horse battery', stored.replace(/^scrypt/, 'bcrypt')), false);
  assert.equal(await verifyPassword('correct horse battery', 'scrypt$10$8$1$$'), false);
  assert.equal(await verifyPassword('correct horse battery', stored.slice(0, -4)), false);
});

test('a stored value with absurd parameters never verifies (and never asks scrypt for absurd memory)', async () => {
  const stored = await hashPassword('correct horse battery', COST);
  for (const [field, value] of [[1, '40'], [1, 'x'], [2, '0'], [3, '99']] as const) {
    const parts = stored.split('$');
    parts[field] = value;
    assert.equal(await verifyPassword('correct horse battery', parts.join('$')), false, parts.slice(0, 4).join('$'));
  }
});

test('the production cost N = 2^17, r = 8 fits in maxmem (128 MiB plus a small margin) and verifies', async () => {
  const { maxmem = 0 } = scryptOptions(17, 8, 1);
  assert.ok(maxmem >= 128 * 8 * (2 ** 17 + 3), `maxmem ${maxmem}`);
  assert.ok(maxmem <= 130 * 1024 * 1024, `maxmem ${maxmem}`);
  const stored = await hashPassword('correct horse battery', 17);
  assert.match(stored, /^scrypt\$17\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse battery', stored), true);
});

test('needsRehash: a lower cost or other parameters need a new hash; the same or a higher cost does not', async () => {
  const stored = await hashPassword('correct horse battery', COST);
  assert.equal(needsRehash(stored, COST), false);
  assert.equal(needsRehash(stored, COST - 1), false);
  assert.equal(needsRehash(stored, COST + 1), true);
  assert.equal(needsRehash(stored.replace(/^scrypt\$10\$8\$1\$/, 'scrypt$10$4$1$'), COST), true);
  assert.equal(needsRehash(stored.replace(/^scrypt\$10\$8\$1\$/, 'scrypt$10$8$2$'), COST), true);
});

test('the dummy check for unknown accounts always answers false', async () => {
  assert.equal(await verifyAgainstDummy('dummy-password-for-timing', COST), false);
  assert.equal(await verifyAgainstDummy('anything at all', COST), false);
});

test('the password rule accepts 10 characters and refuses 9', () => {
  assert.equal(PASSWORD_MIN_LENGTH, 10);
  assert.equal(passwordSchema.safeParse('1234567890').success, true);
  assert.equal(passwordSchema.safeParse('123456789').success, false);
});
