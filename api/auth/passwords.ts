/**
 * Password hashing with scrypt (node:crypto). Stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`
 * so the cost can be raised later without breaking existing hashes: a hash made with less
 * than the configured cost verifies and is then replaced (`needsRehash`) at sign-in.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
/** scrypt needs 128·r·(N + p + 2) bytes; node refuses anything above `maxmem` (32 MiB by default). */
const MAXMEM_MARGIN_BYTES = 1024 * 1024;

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** N = 2^17, r = 8 needs 128 MiB (plus a little); maxmem allows exactly that plus a margin. */
export function scryptOptions(log2N: number, r: number, p: number): ScryptOptions {
  const N = 2 ** log2N;
  return { N, r, p, maxmem: 128 * r * (N + p + 2) + MAXMEM_MARGIN_BYTES };
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, scryptOptions(log2N, BLOCK_SIZE, PARALLELISM));
  return ['scrypt', log2N, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface StoredHash {
  log2N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** Bounds keep a corrupted stored value from asking scrypt for absurd memory. */
function parseStoredHash(stored: string): StoredHash | null {
  const [scheme, log2N, r, p, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || rest.length > 0) return null;
  const cost = { log2N: Number(log2N), r: Number(r), p: Number(p) };
  const inRange = (value: number, max: number) => Number.isInteger(value) && value >= 1 && value <= max;
  if (!inRange(cost.log2N, 20) || !inRange(cost.r, 32) || !inRange(cost.p, 16)) return null;
  return { ...cost, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  const actual = await scryptAsync(password, parsed.salt, scryptOptions(parsed.log2N, parsed.r, parsed.p));
  return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

/**
 * True when a (verified) stored hash was made with less than the configured cost or with
 * other scrypt parameters; sign-in then stores a new hash. A higher cost is left alone.
 */
export function needsRehash(stored: string, log2N: number): boolean {
  const parsed = parseStoredHash(stored);
  return !parsed || parsed.log2N < log2N || parsed.r !== BLOCK_SIZE || parsed.p !== PARALLELISM;
}

/**
 * Spends the same time as a real check when the account does not exist, so response time
 * does not tell an attacker which usernames are taken. The stand-in hash is random bytes in
 * the stored format: checking against it costs one scrypt run, like a real account, even
 * the first time (hashing a dummy password first would make that call cost two).
 */
export async function verifyAgainstDummy(password: string, log2N: number): Promise<false> {
  const standIn = ['scrypt', log2N, BLOCK_SIZE, PARALLELISM, randomBytes(16).toString('base64url'), randomBytes(KEY_LENGTH).toString('base64url')].join('$');
  await verifyPassword(password, standIn);
  return false;
}
