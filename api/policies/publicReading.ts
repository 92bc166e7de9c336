/**
 * What the public (anonymous visitors) may read, for the app's "Public" badges: asked of the
 * grant resolver with the anonymous subject, from the pond's cached access data, so the badge
 * says exactly what the public layer serves.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { ANONYMOUS, SubjectAccess, type PageState, type PondAccessData } from './grantResolution.ts';

/** `pond`: the public reads the pond as a whole; `pages`: some of its live pages only; null: nothing. */
export type PublicReading = 'pond' | 'pages' | null;

export function publicAccessOf(data: PondAccessData): SubjectAccess {
  return new SubjectAccess(data, ANONYMOUS);
}

/** Whether the public may read this page (a trashed pond or page: no). */
export function pagePubliclyReadable(data: PondAccessData, page: PageState): boolean {
  return publicAccessOf(data).page(page, 'read').allowed;
}

/**
 * How much of the pond the public reads. A pond-level allow makes it `pond`; otherwise the
 * label- and page-scope allows name the candidates, and one query over those live pages
 * settles whether any is readable (a label on no live page, or a deny on the page, opens nothing).
 */
export async function pondPublicReading(sequelize: Sequelize, data: PondAccessData): Promise<PublicReading> {
  const access = publicAccessOf(data);
  if (access.pond('read').allowed) return 'pond';
  if (!access.hasScopedAllow) return null;
  const rules = access.liveReadRules();
  const allowLabels = new Set(rules.allowLabelIds);
  const candidates = new Set(rules.allowPageIds);
  for (const [pageId, labelIds] of data.pageLabels) {
    if (labelIds.some((id) => allowLabels.has(id))) candidates.add(pageId);
  }
  if (candidates.size === 0) return null;
  const live = await sequelize.query<{ id: string }>(`SELECT id FROM pages WHERE pond_id = :pondId AND id IN (:ids) AND trashed_at IS NULL`, {
    replacements: { pondId: data.pondId, ids: [...candidates] },
    type: QueryTypes.SELECT,
  });
  return live.some((row) => access.page({ id: row.id, trashedAt: null }, 'read').allowed) ? 'pages' : null;
}
