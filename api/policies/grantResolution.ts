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

/** See `SubjectAccess.liveReadRules`. */
export interface LiveReadRules {
  /** 'all': every page is readable (Site Admin, pond admin); 'none': nothing is (trashed pond). */
  bypass: 'all' | 'none' | null;
  pondAllows: boolean;
  allowPageIds: string[];
  denyPageIds: string[];
  /** Labels whose chain (the label and its ancestors) allows, resp. denies, reading. */
  allowLabelIds: string[];
  denyLabelIds: string[];
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

interface LevelDecision {
  deny: GrantRule | null;
  allow: GrantRule | null;
}

function preferred(current: GrantRule | null, candidate: GrantRule | null): GrantRule | null {
  if (!candidate) return current;
  if (!current) return candidate;
  return SUBJECT_RANK[candidate.subjectType] < SUBJECT_RANK[current.subjectType] ? candidate : current;
}

/** The strongest deny and allow among grants that bear on the capability. */
function decide(grants: readonly GrantRule[], capability: Capability): LevelDecision {
  let deny: GrantRule | null = null;
  let allow: GrantRule | null = null;
  for (const grant of grants) {
    if (!bearsOn(grant, capability)) continue;
    if (grant.effect === 'deny') deny = preferred(deny, grant);
    else allow = preferred(allow, grant);
  }
  return { deny, allow };
}

const CAPABILITIES: readonly Capability[] = ['read', 'write', 'admin'];

/**
 * The grants of one pond that match one subject, indexed by scope. Build it once per
 * request (or per listing) and resolve any number of pages against it: everything that does
 * not depend on the page (bypass, pond level, each label's chain) is decided once.
 */
export class SubjectAccess {
  readonly data: PondAccessData;
  readonly subject: AccessSubject;
  readonly adminGrant: GrantRule | null;
  private readonly pondGrants: GrantRule[] = [];
  private readonly labelGrants = new Map<string, GrantRule[]>();
  private readonly pageGrants = new Map<string, GrantRule[]>();
  private readonly bypassVerdict: Verdict | null;
  private readonly pondVerdicts = new Map<Capability, Verdict>();
  /** capability → label id → decision over the grants on the label and all its ancestors. */
  private readonly chainDecisions: Record<Capability, Map<string, LevelDecision>> = { read: new Map(), write: new Map(), admin: new Map() };
  /** The same as verdicts, shared by every page that carries only that label (no allocation per page). */
  private readonly chainVerdicts: Record<Capability, Map<string, Verdict | null>> = { read: new Map(), write: new Map(), admin: new Map() };

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
    this.bypassVerdict = subject.isSiteAdmin
      ? { allowed: true, level: 'none', reason: 'site_admin', grant: null }
      : adminGrant
        ? { allowed: true, level: 'pond', reason: 'pond_admin', grant: adminGrant }
        : data.trashedAt
          ? { allowed: false, level: 'none', reason: 'pond_trashed', grant: null }
          : null;
    for (const capability of CAPABILITIES) this.pondVerdicts.set(capability, this.bypassVerdict ?? verdictFor('pond', decide(this.pondGrants, capability)));
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
    return this.pondVerdicts.get(capability)!;
  }

  /** A capability on one page of this pond. */
  page(page: PageState, capability: Capability): Verdict {
    if (this.bypassVerdict) return this.bypassVerdict;
    // The trash rule: seeing a trashed page at all takes write capability.
    const needed: Capability = page.trashedAt && capability === 'read' ? 'write' : capability;
    const pageGrants = this.pageGrants.get(page.id);
    if (pageGrants) {
      const decision = decide(pageGrants, needed);
      if (decision.deny || decision.allow) return verdictFor('page', decision);
    }
    const labelIds = this.labelGrants.size > 0 ? this.data.pageLabels.get(page.id) : undefined;
    if (labelIds && labelIds.length === 1) {
      const verdict = this.chainVerdict(labelIds[0]!, needed);
      if (verdict) return verdict;
    } else if (labelIds) {
      let deny: GrantRule | null = null;
      let allow: GrantRule | null = null;
      for (const labelId of labelIds) {
        const decision = this.chainDecision(labelId, needed);
        deny = preferred(deny, decision.deny);
        allow = preferred(allow, decision.allow);
      }
      if (deny || allow) return verdictFor('label', { deny, allow });
    }
    return this.pondVerdicts.get(needed)!;
  }

  /**
   * The read rule for every live page of the pond, as lists a query can apply to all pages
   * at once (api/policies/readablePagesSql.ts) with the precedence of `page()`: the bypass,
   * then the page-scope decisions, then the label-scope ones (any deny among the page's labels
   * wins over their allows), then the pond level.
   */
  liveReadRules(): LiveReadRules {
    const bypass = this.bypassVerdict ? (this.bypassVerdict.allowed ? 'all' : 'none') : null;
    const rules: LiveReadRules = { bypass, pondAllows: this.pondVerdicts.get('read')!.allowed, allowPageIds: [], denyPageIds: [], allowLabelIds: [], denyLabelIds: [] };
    if (bypass) return rules;
    for (const [pageId, grants] of this.pageGrants) {
      const decision = decide(grants, 'read');
      if (decision.deny) rules.denyPageIds.push(pageId);
      else if (decision.allow) rules.allowPageIds.push(pageId);
    }
    if (this.labelGrants.size === 0) return rules;
    for (const labelId of this.data.labelParents.keys()) {
      const decision = this.chainDecision(labelId, 'read');
      if (decision.deny) rules.denyLabelIds.push(labelId);
      else if (decision.allow) rules.allowLabelIds.push(labelId);
    }
    return rules;
  }

  /** The label-level verdict of a page carrying just this label, or null when the chain is silent. */
  private chainVerdict(labelId: string, capability: Capability): Verdict | null {
    const known = this.chainVerdicts[capability].get(labelId);
    if (known !== undefined) return known;
    const decision = this.chainDecision(labelId, capability);
    const verdict = decision.deny || decision.allow ? verdictFor('label', decision) : null;
    this.chainVerdicts[capability].set(labelId, verdict);
    return verdict;
  }

  private chainDecision(labelId: string, capability: Capability): LevelDecision {
    const known = this.chainDecisions[capability].get(labelId);
    if (known) return known;
    const grants: GrantRule[] = [];
    const visited = new Set<string>();
    // Walk up the label tree; `visited` guards against a cycle the schema should never allow.
    for (let current: string | null | undefined = labelId; current && !visited.has(current); current = this.data.labelParents.get(current)) {
      visited.add(current);
      const own = this.labelGrants.get(current);
      if (own) grants.push(...own);
    }
    const decision = decide(grants, capability);
    this.chainDecisions[capability].set(labelId, decision);
    return decision;
  }
}

/** Within one level deny wins; a level with neither leaves the decision to the next. */
function verdictFor(level: DecidingLevel, decision: LevelDecision): Verdict {
  if (decision.deny) return { allowed: false, level, reason: 'grant', grant: decision.deny };
  if (decision.allow) return { allowed: true, level, reason: 'grant', grant: decision.allow };
  return { allowed: false, level: 'none', reason: 'no_grant', grant: null };
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

/** How many grants are scoped on one of these labels (they go when the labels are deleted). */
export function countGrantsScopedOn(data: PondAccessData, labelIds: ReadonlySet<string>): number {
  return data.grants.filter((grant) => grant.scopeType === 'label' && labelIds.has(grant.scopeLabelId!)).length;
}
