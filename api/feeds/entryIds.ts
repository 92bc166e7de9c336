/**
 * Atom ids (RFC 4287 4.2.6: permanent, universally unique, never reused). They are `urn:uuid:`
 * IRIs, because our objects are uuids already and, unlike `tag:` URIs, they do not change when
 * the instance moves to another host name:
 *
 * - a feed is its pond's or its page's id;
 * - a version entry is the version's id (a version never changes);
 * - a recently-changed entry stands for one change of a page: a name-based uuid (RFC 9562
 *   version 5) of the page id and its `updated` time. A reader then shows each new change as a
 *   new item, while a refetch of the same state keeps the same id, for the public and the
 *   token view alike.
 */
import { createHash } from 'node:crypto';

export function uuidUrn(uuid: string): string {
  return `urn:uuid:${uuid.toLowerCase()}`;
}

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
}

/** RFC 9562 5.5: SHA-1 of namespace and name, version and variant bits set. */
export function uuidV5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id of "page `pageId` as changed at `updated`" in a recent-changes feed. */
export function pageChangeEntryId(pageId: string, updated: Date): string {
  return uuidUrn(uuidV5(pageId, `changed@${updated.toISOString()}`));
}
