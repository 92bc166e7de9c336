/**
 * The quota ladder (spec: Limits): a pond override beats a user override (of the pond's
 * owner) beats the instance default from settings. `null` means unlimited. Overrides are
 * written by the admin quota routes (api/quotas/quotaAdmin.ts); every quota check reads
 * through here.
 */
import type { Transaction } from 'sequelize';
import { Op } from 'sequelize';
import { QuotaOverride, type QuotaName } from '../models/index.ts';
import { getSetting } from '../settings/instanceSettings.ts';

export const QUOTA_NAMES = ['editors_per_pond', 'readers_per_pond', 'storage_bytes', 'max_file_bytes'] as const satisfies readonly QuotaName[];

export interface QuotaHolder {
  pondId: string | null;
  /** The user whose override applies: the pond's owner. */
  userId: string | null;
}

export type QuotaSource = 'pond' | 'user' | 'instance';

export interface ResolvedQuota {
  limit: number | null;
  source: QuotaSource;
}

/** An override as stored: present with a value (null = unlimited), or absent (undefined). */
export interface OverrideValue {
  value: number | null;
}

/** The ladder itself, for callers that have read the rungs already. */
export function climbLadder(pondOverride: OverrideValue | undefined, userOverride: OverrideValue | undefined, instanceDefault: number | null): ResolvedQuota {
  if (pondOverride) return { limit: pondOverride.value, source: 'pond' };
  if (userOverride) return { limit: userOverride.value, source: 'user' };
  return { limit: instanceDefault, source: 'instance' };
}

export function instanceDefault(quota: QuotaName, transaction?: Transaction): Promise<number | null> {
  return getSetting(`quota.${quota}`, transaction);
}

export async function resolveQuota(quota: QuotaName, holder: QuotaHolder, transaction?: Transaction): Promise<ResolvedQuota> {
  const holders = [
    ...(holder.pondId ? [{ pondId: holder.pondId }] : []),
    ...(holder.userId ? [{ userId: holder.userId }] : []),
  ];
  const overrides = holders.length > 0 ? await QuotaOverride.findAll({ where: { quota, [Op.or]: holders }, transaction }) : [];
  const pondOverride = overrides.find((row) => row.pondId !== null);
  const userOverride = overrides.find((row) => row.userId !== null);
  if (pondOverride) return climbLadder(pondOverride, userOverride, null);
  return climbLadder(undefined, userOverride, await instanceDefault(quota, transaction));
}
