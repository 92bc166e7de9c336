/**
 * Direct-to-database seeding of ponds, pages, labels and grants, for tests whose subject is
 * something else (the resolution, one route family). Each helper writes what the real
 * commands would write; tests of those commands go through HTTP instead.
 */
import { generateKeyBetween } from 'fractional-indexing';
import { Grant, Label, Page, PageLabel, Pond, type GrantEffect, type GrantSubjectType, type PondRole } from '../models/index.ts';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';

let counter = 0;

/** A shared pond owned by `ownerId`, with the owner's pond_admin grant. */
export async function seedSharedPond(ownerId: string, name?: string): Promise<Pond> {
  counter += 1;
  const pond = await Pond.create({ slug: `seeded-pond-${counter}-${Date.now()}`, name: name ?? `Seeded pond ${counter}`, kind: 'shared', ownerId });
  await seedGrant(pond.id, { subject: { type: 'user', id: ownerId }, role: 'pond_admin' });
  return pond;
}

export async function seedPage(pondId: string, title: string, options: { parentId?: string | null; createdBy?: string | null; trashed?: boolean } = {}): Promise<Page> {
  counter += 1;
  const last = await Page.findOne({ where: { pondId, parentId: options.parentId ?? null }, order: [['position', 'DESC']] });
  return Page.create({
    pondId,
    title,
    slug: `seeded-page-${counter}`,
    parentId: options.parentId ?? null,
    position: generateKeyBetween(last?.position ?? null, null),
    createdBy: options.createdBy ?? null,
    updatedBy: options.createdBy ?? null,
    trashedAt: options.trashed ? new Date() : null,
  });
}

export async function seedLabel(pondId: string, name: string, options: { parentId?: string | null; color?: string } = {}): Promise<Label> {
  return Label.create({ pondId, name, parentId: options.parentId ?? null, color: options.color ?? '#3366cc' });
}

export async function seedPageLabels(page: Page, labels: Label[]): Promise<void> {
  for (const label of labels) await PageLabel.create({ pageId: page.id, labelId: label.id, pondId: page.pondId });
  invalidateAllPondAccess();
}

export interface SeedGrantProps {
  subject: { type: 'user'; id: string } | { type: Exclude<GrantSubjectType, 'user'> };
  role: PondRole;
  scope?: { type: 'pond' } | { type: 'label'; id: string } | { type: 'page'; id: string };
  effect?: GrantEffect;
}

export async function seedGrant(pondId: string, props: SeedGrantProps): Promise<Grant> {
  const scope = props.scope ?? { type: 'pond' };
  const grant = await Grant.create({
    pondId,
    subjectType: props.subject.type,
    subjectUserId: props.subject.type === 'user' ? props.subject.id : null,
    role: props.role,
    scopeType: scope.type,
    scopeLabelId: scope.type === 'label' ? scope.id : null,
    scopePageId: scope.type === 'page' ? scope.id : null,
    effect: props.effect ?? 'allow',
    createdBy: null,
  });
  // Seeding bypasses the commands that announce changes; drop the cache as they would.
  invalidateAllPondAccess();
  return grant;
}
