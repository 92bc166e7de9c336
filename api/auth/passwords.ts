/**
 * Password hashing with scrypt (node:crypto). Stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`
 * so the cost can be raised later without breaking existing hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function scryptOptions(log2N: number, r: number, p: number): ScryptOptions {
  return { N: 2 ** log2N, r, p, maxmem: 2 ** log2N * r * 256 };
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, scryptOptions(log2N, 8, 1));
  return ['scrypt', log2N, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), scryptOptions(Number(log2N), Number(r), Number(p)));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | null = null;

/**
 * Spends the same time as a real check when the account does not exist, so response time
 * does not tell an attacker which usernames are taken.
 */
export async function verifyAgainstDummy(password: string, log2N: number): Promise<false> {
  dummyHash ??= hashPassword('dummy-password-for-timing', log2N);
  await verifyPassword(password, await dummyHash);
  return false;
}
