/**
 * The grant resolver: the one place that interprets grants. Pure (no database, no I/O), so
 * the whole rule set is testable as a table and fast enough to filter thousands of pages.
 *
 * Rules (spec: Authorization model):
 * - Site Admin bypasses everything. A pond admin may do everything in the pond.
 * - For a page, the most specific level with a grant that matches the subject and bears on
 *   the capability decides: page, then label (the page's labels and their ancestors), then
 *   pond. Within one level deny wins. No such grant anywhere: closed.
 * - Subjects: a user grant matches that user, `signed-in` any signed-in user, `public`
 *   everyone including anonymous callers.
 * - Capabilities: reader = read; editor = read + write; pond_admin = everything.
 *   An allow of role R grants every capability up to R. A deny of role R takes away R and
 *   everything above it: `deny reader` hides, `deny editor` makes read-only.
 * - A trashed page needs write capability to be seen at all; a trashed pond is visible to
 *   its pond admins only (and Site Admins).
 */
import type { GrantEffect, GrantScopeType, GrantSubjectType, PondKind, PondRole } from '../models/index.ts';

export type Capability = 'read' | 'write' | 'admin';

export interface GrantRule {
  id: string;
  subjectType: GrantSubjectType;
  subjectUserId: string | null;
  role: PondRole;
  scopeType: GrantScopeType;
  scopeLabelId: string | null;
  scopePageId: string | null;
  effect: GrantEffect;
}

/** Everything about one pond that access depends on, except the pages' own state. */
export interface PondAccessData {
  pondId: string;
  kind: PondKind;
  ownerId: string | null;
  trashedAt: Date | null;
  grants: readonly GrantRule[];
  /** label id → parent label id */
  labelParents: ReadonlyMap<string, string | null>;
  /** page id → ids of the labels assigned to it */
  pageLabels: ReadonlyMap<string, readonly string[]>;
}

/** Who asks. A user id implies signed in; the pseudo subject "all signed-in users" has none. */
export interface AccessSubject {
  userId: string | null;
  signedIn: boolean;
  isSiteAdmin: boolean;
}

export const ANONYMOUS: AccessSubject = Object.freeze({ userId: null, signedIn: false, isSiteAdmin: false });

export type DecidingLevel = 'page' | 'label' | 'pond' | 'none';
export type VerdictReason = 'site_admin' | 'pond_admin' | 'grant' | 'no_grant' | 'pond_trashed';

export interface Verdict {
  allowed: boolean;
  level: DecidingLevel;
  reason: VerdictReason;
  /** The grant that decided (for a denial within a level: a deny). */
  grant: GrantRule | null;
}

export interface PageState {
  id: string;
  trashedAt: Date | null;
}

const ROLE_RANK: Record<PondRole, number> = { reader: 1, editor: 2, pond_admin: 3 };
const CAPABILITY_RANK: Record<Capability, number> = { read: 1, write: 2, admin: 3 };
// When several grants decide a level together, name the most specific subject.
const SUBJECT_RANK: Record<GrantSubjectType, number> = { user: 0, 'signed-in': 1, public: 2 };

export function subjectMatches(grant: GrantRule, subject: AccessSubject): boolean {
  if (grant.subjectType === 'public') return true;
  if (grant.subjectType === 'signed-in') return subject.signedIn;
  return subject.userId !== null && grant.subjectUserId === subject.userId;
}

/** Whether a grant bears on a capability: see the allow/deny rule in the header. */
function bearsOn(grant: GrantRule, capability: Capability): boolean {
  const role = ROLE_RANK[grant.role];
  const needed = CAPABILITY_RANK[capability];
  return grant.effect === 'allow' ? role >= needed : role <= needed;
}

/** Within one level: deny wins; returns null when no grant of the level bears on the capability. */
function decideLevel(grants: readonly GrantRule[], capability: Capability): GrantRule | null {
  let decidingAllow: GrantRule | null = null;
  let decidingDeny: GrantRule | null = null;
  for (const grant of grants) {
    if (!bearsOn(grant, capability)) continue;
    if (grant.effect === 'deny') {
      if (!decidingDeny || SUBJECT_RANK[grant.subjectType] < SUBJECT_RANK[decidingDeny.subjectType]) decidingDeny = grant;
    } else if (!decidingAllow || SUBJECT_RANK[grant.subjectType] < SUBJECT_RANK[decidingAllow.subjectType]) decidingAllow = grant;
  }
  return decidingDeny ?? decidingAllow;
}

/**
 * The grants of one pond that match one subject, indexed by scope. Build it once per
 * request (or per listing) and resolve any number of pages against it.
 */
export class SubjectAccess {
  readonly data: PondAccessData;
  readonly subject: AccessSubject;
  readonly adminGrant: GrantRule | null;
  private readonly pondGrants: GrantRule[] = [];
  private readonly labelGrants = new Map<string, GrantRule[]>();
  private readonly pageGrants = new Map<string, GrantRule[]>();
  /** label id → grants on the label and on all its ancestors (filled lazily). */
  private readonly labelChainGrants = new Map<string, readonly GrantRule[]>();

  constructor(data: PondAccessData, subject: AccessSubject) {
    this.data = data;
    this.subject = subject;
    let adminGrant: GrantRule | null = null;
    for (const grant of data.grants) {
      if (!subjectMatches(grant, subject)) continue;
      if (grant.scopeType === 'pond') {
        this.pondGrants.push(grant);
        if (grant.role === 'pond_admin' && grant.effect === 'allow') adminGrant = grant;
      } else if (grant.scopeType === 'label') pushTo(this.labelGrants, grant.scopeLabelId!, grant);
      else pushTo(this.pageGrants, grant.scopePageId!, grant);
    }
    this.adminGrant = adminGrant;
  }

  get isPondAdmin(): boolean {
    return this.adminGrant !== null;
  }

  /** Whether any label- or page-scope allow reaches the subject (it can see part of the pond). */
  get hasScopedAllow(): boolean {
    for (const grants of [...this.labelGrants.values(), ...this.pageGrants.values()]) {
      if (grants.some((grant) => grant.effect === 'allow')) return true;
    }
    return false;
  }

  /** A capability on the pond as a whole: only pond-scope grants count. */
  pond(capability: Capability): Verdict {
    const bypass = this.bypass();
    if (bypass) return bypass;
    return this.fromLevels(capability, [['pond', this.pondGrants]]);
  }

  /** A capability on one page of this pond. */
  page(page: PageState, capability: Capability): Verdict {
    const bypass = this.bypass();
    if (bypass) return bypass;
    // The trash rule: seeing a trashed page at all takes write capability.
    const needed: Capability = page.trashedAt && capability === 'read' ? 'write' : capability;
    return this.fromLevels(needed, [
      ['page', this.pageGrants.get(page.id) ?? []],
      ['label', this.labelLevelGrants(page.id)],
      ['pond', this.pondGrants],
    ]);
  }

  private bypass(): Verdict | null {
    if (this.subject.isSiteAdmin) return { allowed: true, level: 'none', reason: 'site_admin', grant: null };
    if (this.adminGrant) return { allowed: true, level: 'pond', reason: 'pond_admin', grant: this.adminGrant };
    if (this.data.trashedAt) return { allowed: false, level: 'none', reason: 'pond_trashed', grant: null };
    return null;
  }

  private fromLevels(capability: Capability, levels: [DecidingLevel, readonly GrantRule[]][]): Verdict {
    for (const [level, grants] of levels) {
      const grant = decideLevel(grants, capability);
      if (grant) return { allowed: grant.effect === 'allow', level, reason: 'grant', grant };
    }
    return { allowed: false, level: 'none', reason: 'no_grant', grant: null };
  }

  private labelLevelGrants(pageId: string): readonly GrantRule[] {
    if (this.labelGrants.size === 0) return [];
    const labelIds = this.data.pageLabels.get(pageId);
    if (!labelIds || labelIds.length === 0) return [];
    if (labelIds.length === 1) return this.chainGrants(labelIds[0]!);
    const seen = new Set<GrantRule>();
    for (const labelId of labelIds) for (const grant of this.chainGrants(labelId)) seen.add(grant);
    return [...seen];
  }

  private chainGrants(labelId: string): readonly GrantRule[] {
    const known = this.labelChainGrants.get(labelId);
    if (known) return known;
    const grants: GrantRule[] = [];
    const visited = new Set<string>();
    // Walk up the label tree; `visited` guards against a cycle the schema should never allow.
    for (let current: string | null | undefined = labelId; current && !visited.has(current); current = this.data.labelParents.get(current)) {
      visited.add(current);
      const own = this.labelGrants.get(current);
      if (own) grants.push(...own);
    }
    this.labelChainGrants.set(labelId, grants);
    return grants;
  }
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The pond-level role a subject effectively holds (deny taken into account), or null. */
export function effectivePondRole(access: SubjectAccess): PondRole | null {
  if (access.pond('admin').allowed) return 'pond_admin';
  if (access.pond('write').allowed) return 'editor';
  if (access.pond('read').allowed) return 'reader';
  return null;
}

/**
 * Whether the subject can see the pond at all: pond-level read, or any label- or page-scope
 * allow that reaches it (it can then list what it may read).
 */
export function pondVisible(access: SubjectAccess): boolean {
  const verdict = access.pond('read');
  if (verdict.allowed) return true;
  if (verdict.reason === 'pond_trashed') return false;
  return access.hasScopedAllow;
}

/**
 * Whether assigning or removing this label can change anyone's access: the label or one of
 * its ancestors is the scope of some grant (of any subject).
 */
export function labelGovernsAccess(data: PondAccessData, labelId: string): boolean {
  const scoped = new Set<string>();
  for (const grant of data.grants) if (grant.scopeType === 'label') scoped.add(grant.scopeLabelId!);
  if (scoped.size === 0) return false;
  const visited = new Set<string>();
  for (let current: string | null | undefined = labelId; current && !visited.has(current); current = data.labelParents.get(current)) {
    if (scoped.has(current)) return true;
    visited.add(current);
  }
  return false;
}
