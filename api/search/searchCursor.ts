/**
 * The search cursor: where the last page of results ended in the ranked order (tier, rank,
 * page id). Opaque to clients; a cursor we did not hand out is a 400 naming `query.cursor`.
 */
import { z } from 'zod';
import { isUuid } from '../policies/accessPolicy.ts';

export interface SearchCursor {
  tier: 0 | 1 | 2;
  rank: number;
  id: string;
}

export function encodeSearchCursor(cursor: SearchCursor): string {
  return Buffer.from(JSON.stringify([cursor.tier, cursor.rank, cursor.id]), 'utf8').toString('base64url');
}

export function decodeSearchCursor(text: string): SearchCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [tier, rank, id] = value as unknown[];
    if ((tier !== 0 && tier !== 1 && tier !== 2) || typeof rank !== 'number' || !Number.isFinite(rank) || !isUuid(id)) return null;
    return { tier, rank, id: id.toLowerCase() };
  } catch {
    return null;
  }
}

export const searchCursorField = z
  .string()
  .refine((text) => decodeSearchCursor(text) !== null)
  .optional();
