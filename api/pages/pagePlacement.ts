/**
 * Where a page goes inside its (new) sibling group: before or after a sibling, at an index,
 * or last. The answer is a fresh fractional key strictly between two neighbouring keys, so
 * no sibling is ever renumbered.
 *
 * Bad placements are thrown as `TreeFieldError` inside the transaction and localized outside
 * it (the locale lookup may need a connection of its own, which must not be awaited while the
 * pond lock is held).
 */
import { generateKeyBetween } from 'fractional-indexing';
import { ApiError, forbidden } from '../http/apiError.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import type { SubjectAccess } from '../policies/accessPolicy.ts';
import type { PageTree } from './pageTree.ts';

export interface Placement {
  /** A live sibling in the target group: the page goes right before it. */
  before?: string | undefined;
  /** A live sibling in the target group: the page goes right after it. */
  after?: string | undefined;
  /** Among the live siblings the caller can read: 0 is first, their count is last. */
  index?: number | undefined;
}

export type TreeFieldProblem = 'invalid_parent' | 'invalid_sibling' | 'index_out_of_range';

/** A field the caller got wrong; `toApiError` makes the localized 400. */
export class TreeFieldError extends Error {
  readonly path: string;
  readonly problem: TreeFieldProblem;
  readonly extra: Record<string, unknown>;

  constructor(path: string, problem: TreeFieldProblem, extra: Record<string, unknown> = {}) {
    super(`${path}: ${problem}`);
    this.path = path;
    this.problem = problem;
    this.extra = extra;
  }

  async toApiError(locale: () => Promise<Locale>): Promise<ApiError> {
    const message = apiText(`field.${this.problem}`, await locale());
    return new ApiError('validation_failed', 400, { fields: [{ path: this.path, code: this.problem, message, ...this.extra }] });
  }
}

/** Runs `work`, turning a `TreeFieldError` it throws into the localized 400. */
export async function withTreeFieldErrors<T>(locale: () => Promise<Locale>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TreeFieldError) throw await error.toApiError(locale);
    throw error;
  }
}

/** An unreadable parent answers like a missing one (nothing leaks); a readable one must be writable. */
export function assertParentAccess(access: SubjectAccess, parentId: string): void {
  if (!access.page({ id: parentId, trashedAt: null }, 'read').allowed) throw new TreeFieldError('parentId', 'invalid_parent');
  if (!access.page({ id: parentId, trashedAt: null }, 'write').allowed) throw forbidden();
}

/**
 * A parent for a new or moved page: a live page of this pond the caller may write. Missing,
 * elsewhere, trashed and unreadable all answer the same field error; readable but not
 * writable is 403.
 */
export async function assertUsableLiveParent(tree: PageTree, access: SubjectAccess, parentId: string): Promise<void> {
  const parent = await tree.row(parentId);
  if (!parent || parent.trashed_at) throw new TreeFieldError('parentId', 'invalid_parent');
  assertParentAccess(access, parentId);
}

/**
 * The key that puts a page at `placement` among the children of `parentId`. `movingId` is
 * the page being moved (left out of its own neighbours), or null for a new page.
 */
export async function placementKey(tree: PageTree, access: SubjectAccess, parentId: string | null, placement: Placement, movingId: string | null): Promise<string> {
  const siblingField = placement.before !== undefined ? 'before' : placement.after !== undefined ? 'after' : null;
  if (siblingField) {
    const siblingId = (placement.before ?? placement.after)!;
    const sibling = siblingId === movingId ? null : await tree.row(siblingId);
    if (!sibling || sibling.trashed_at || sibling.parent_id !== parentId || !access.page({ id: sibling.id, trashedAt: null }, 'read').allowed) {
      throw new TreeFieldError(siblingField, 'invalid_sibling');
    }
    return siblingField === 'before'
      ? generateKeyBetween(await tree.keyBefore(parentId, sibling.position, movingId), sibling.position)
      : generateKeyBetween(sibling.position, await tree.keyAfter(parentId, sibling.position, movingId));
  }
  if (placement.index !== undefined) {
    const visible = (await tree.liveChildren(parentId)).filter((row) => row.id !== movingId && access.page({ id: row.id, trashedAt: null }, 'read').allowed);
    if (placement.index > visible.length) throw new TreeFieldError('index', 'index_out_of_range', { max: visible.length });
    if (placement.index === 0) return generateKeyBetween(null, (await tree.keyRange(parentId, movingId)).first);
    if (placement.index < visible.length) {
      const next = visible[placement.index]!;
      return generateKeyBetween(await tree.keyBefore(parentId, next.position, movingId), next.position);
    }
  }
  return tree.lastKey(parentId, movingId);
}
