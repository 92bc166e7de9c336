/**
 * What each quota's holder uses now, for the admin quota screen (docs/quotas.md).
 * Per pond:
 * - `editors_per_pond` / `readers_per_pond`: listed members whose granted role takes that
 *   seat, counted exactly as the seat rule counts them (`seatOf`: pond admins take an editor seat);
 * - `storage_bytes`: the bytes of the pond's stored files;
 * - `max_file_bytes`: the size of the largest stored file (`allowedNow` adds the largest upload
 *   the pond would accept at this moment: the file limit, or less when the storage has less room).
 * A user's override governs the ponds they own that have no override of their own, so a user's
 * usage is that of the busiest such pond (named), with the number of ponds it governs.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { loadMembers, seatOf, type SeatKind } from '../commands/membershipCommands.ts';
import { pondStorageUsed } from '../files/fileViews.ts';
import type { Pond, QuotaName } from '../models/index.ts';

export interface PondUsage {
  editors: number;
  readers: number;
  storageBytes: number;
  largestFileBytes: number;
}

export interface PondRef {
  id: string;
  slug: string;
  name: string;
}

export interface QuotaUsage {
  used: number;
  /** The pond measured: the target pond, or a user's busiest governed pond; null when they govern none. */
  pond: PondRef | null;
  /** How many ponds the value governs (1 for a pond target). */
  ponds: number;
  /** `max_file_bytes` only: the largest upload accepted now (null: unlimited). */
  allowedNow?: number | null;
}

export async function measurePond(sequelize: Sequelize, pondId: string): Promise<PondUsage> {
  const [members, storage, largest] = await Promise.all([
    loadMembers(pondId),
    pondStorageUsed(sequelize, pondId),
    sequelize.query<{ largest: string | null }>(`SELECT max(size_bytes) AS largest FROM files WHERE pond_id = :pondId`, { replacements: { pondId }, type: QueryTypes.SELECT }),
  ]);
  const seats = (kind: SeatKind) => members.filter((member) => seatOf(member.grantedRole) === kind).length;
  return { editors: seats('editors'), readers: seats('readers'), storageBytes: storage.usedBytes, largestFileBytes: Number(largest[0]?.largest ?? 0) };
}

export function usedOf(quota: QuotaName, usage: PondUsage): number {
  switch (quota) {
    case 'editors_per_pond':
      return usage.editors;
    case 'readers_per_pond':
      return usage.readers;
    case 'storage_bytes':
      return usage.storageBytes;
    case 'max_file_bytes':
      return usage.largestFileBytes;
  }
}

/** The largest upload a pond takes now: its file limit, capped by the storage room left. */
export function largestUploadNow(maxFileBytes: number | null, storageLimit: number | null, storageUsed: number): number | null {
  const room = storageLimit === null ? null : Math.max(0, storageLimit - storageUsed);
  if (maxFileBytes === null) return room;
  return room === null ? maxFileBytes : Math.min(maxFileBytes, room);
}

export function pondRefOf(pond: Pond): PondRef {
  return { id: pond.id, slug: pond.slug, name: pond.name };
}
