/**
 * The quota ladder (spec: Limits): a pond override beats a user override (of the pond's
 * owner) beats the instance default from settings. `null` means unlimited. The admin issue
 * adds the routes that write overrides; every quota check reads through here.
 */
import type { Transaction } from 'sequelize';
import { Op } from 'sequelize';
import { QuotaOverride, type QuotaName } from '../models/index.ts';
import { getSetting } from '../settings/instanceSettings.ts';

export interface QuotaHolder {
  pondId: string | null;
  /** The user whose override applies: the pond's owner, or the uploader for user-level quotas. */
  userId: string | null;
}

export interface ResolvedQuota {
  limit: number | null;
  source: 'pond' | 'user' | 'instance';
}

export async function resolveQuota(quota: QuotaName, holder: QuotaHolder, transaction?: Transaction): Promise<ResolvedQuota> {
  const holders = [
    ...(holder.pondId ? [{ pondId: holder.pondId }] : []),
    ...(holder.userId ? [{ userId: holder.userId }] : []),
  ];
  if (holders.length > 0) {
    const overrides = await QuotaOverride.findAll({ where: { quota, [Op.or]: holders }, transaction });
    const pondOverride = overrides.find((row) => row.pondId !== null);
    if (pondOverride) return { limit: pondOverride.value, source: 'pond' };
    const userOverride = overrides.find((row) => row.userId !== null);
    if (userOverride) return { limit: userOverride.value, source: 'user' };
  }
  return { limit: await getSetting(`quota.${quota}`, transaction), source: 'instance' };
}
