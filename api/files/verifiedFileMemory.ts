/**
 * Which stored files this process has re-hashed and found matching, so repeated and ranged
 * downloads of an unchanged file skip hashing it again (a 1-byte range of a 30 MB file would
 * otherwise read all 30 MB). A file is known by what the kernel says about it — device, inode,
 * size, mtime and ctime — and by the hash it matched: any write or rename over it changes the
 * inode or ctime (which no client can set back), so a changed file misses and is hashed again,
 * and fails closed when it no longer matches (mediaDelivery.ts).
 */
import type { Stats } from 'node:fs';

/** Bounded: one entry is a short string; the least recently used goes first. */
const MAX_ENTRIES = 10_000;

const verified = new Map<string, string>();
let hashesComputed = 0;

function identityOf(fileId: string, stats: Stats): string {
  return `${fileId}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** Whether the file as `stats` describes it was verified before against `sha256`. */
export function isKnownVerified(fileId: string, stats: Stats, sha256: string | null): boolean {
  if (sha256 === null) return false;
  const key = identityOf(fileId, stats);
  const hash = verified.get(key);
  if (hash !== sha256) return false;
  // Touched: moved to the young end of the LRU order.
  verified.delete(key);
  verified.set(key, hash);
  return true;
}

/** Remembers a file whose bytes matched `sha256` while it looked like `stats` before and after hashing. */
export function rememberVerified(fileId: string, stats: Stats, sha256: string): void {
  const key = identityOf(fileId, stats);
  verified.delete(key);
  if (verified.size >= MAX_ENTRIES) verified.delete(verified.keys().next().value!);
  verified.set(key, sha256);
}

/** Counts a full re-hash of stored bytes. */
export function countHash(): void {
  hashesComputed += 1;
}

/** How many times this process re-hashed stored bytes for a download: what tests observe. */
export function mediaHashCount(): number {
  return hashesComputed;
}

export function sameFileState(before: Stats, after: Stats): boolean {
  return identityOf('', before) === identityOf('', after);
}
