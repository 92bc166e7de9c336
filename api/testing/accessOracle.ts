/**
 * The access rules of the spec, written down a second time, independently of the resolver,
 * as small tables: the matrix tests compare the resolver (and the HTTP routes) against this.
 *
 * Spec, Authorization model: Site Admin bypasses everything; for a page the most specific
 * level decides (page beats label, including ancestor labels, beats pond); within one level
 * deny wins; no matching grant → closed. Roles: reader = read, editor = read + write,
 * pond_admin = everything in the pond. Grants match a user, all signed-in users, or the
 * public (everyone). Our reading of a deny (documented in grantResolution.ts): it takes
 * away its role's capability and everything above it.
 */
export type OracleCapability = 'read' | 'write';
export type OracleRole = 'reader' | 'editor' | 'pond_admin';
export type OracleSubject = 'member' | 'signed-in' | 'public';
export type OracleScope = 'pond' | 'label' | 'ancestor-label' | 'page';
export type OracleActor = 'member' | 'other' | 'anonymous';

export interface OracleGrant {
  subject: OracleSubject;
  role: OracleRole;
  scope: OracleScope;
  effect: 'allow' | 'deny';
}

/** What an allow of each role grants. */
const ALLOW_GIVES: Record<OracleRole, OracleCapability[]> = {
  reader: ['read'],
  editor: ['read', 'write'],
  pond_admin: ['read', 'write'],
};

/** What a deny of each role takes away. */
const DENY_TAKES: Record<OracleRole, OracleCapability[]> = {
  reader: ['read', 'write'],
  editor: ['write'],
  pond_admin: [],
};

/** Which actors each grant subject reaches. */
const SUBJECT_REACHES: Record<OracleSubject, OracleActor[]> = {
  member: ['member'],
  'signed-in': ['member', 'other'],
  public: ['member', 'other', 'anonymous'],
};

/** The levels, most specific first, and the scopes that belong to each for the tested page. */
const LEVELS: OracleScope[][] = [['page'], ['label', 'ancestor-label'], ['pond']];

/** Valid grant shapes: a pond_admin grant is pond-scope and for a user only. */
export function isValidGrant(grant: OracleGrant): boolean {
  return grant.role !== 'pond_admin' || (grant.scope === 'pond' && grant.subject === 'member');
}

/**
 * The verdict for one actor and capability on a page carrying the label (whose parent is the
 * ancestor label), in a pond whose owner is not the actor.
 */
export function expectedVerdict(grants: OracleGrant[], actor: OracleActor, capability: OracleCapability): boolean {
  const reaching = grants.filter((grant) => SUBJECT_REACHES[grant.subject].includes(actor));
  if (reaching.some((grant) => grant.role === 'pond_admin' && grant.effect === 'allow')) return true;
  for (const scopes of LEVELS) {
    const atLevel = reaching.filter((grant) => scopes.includes(grant.scope));
    const denies = atLevel.some((grant) => grant.effect === 'deny' && DENY_TAKES[grant.role].includes(capability));
    const allows = atLevel.some((grant) => grant.effect === 'allow' && ALLOW_GIVES[grant.role].includes(capability));
    if (denies) return false;
    if (allows) return true;
  }
  return false;
}

export const ORACLE_SUBJECTS: OracleSubject[] = ['member', 'signed-in', 'public'];
export const ORACLE_ROLES: OracleRole[] = ['reader', 'editor', 'pond_admin'];
export const ORACLE_SCOPES: OracleScope[] = ['pond', 'label', 'ancestor-label', 'page'];
export const ORACLE_ACTORS: OracleActor[] = ['member', 'other', 'anonymous'];

/** Backgrounds the tested grant is combined with. */
export const BACKGROUNDS: Record<string, OracleGrant[]> = {
  'closed pond': [],
  'open pond (signed-in edit, public read at pond level)': [
    { subject: 'signed-in', role: 'editor', scope: 'pond', effect: 'allow' },
    { subject: 'public', role: 'reader', scope: 'pond', effect: 'allow' },
  ],
};

/** Every valid tested grant: subject × role × scope × effect. */
export function everyValidGrant(): OracleGrant[] {
  const grants: OracleGrant[] = [];
  for (const subject of ORACLE_SUBJECTS)
    for (const role of ORACLE_ROLES)
      for (const scope of ORACLE_SCOPES)
        for (const effect of ['allow', 'deny'] as const) {
          const grant = { subject, role, scope, effect };
          if (isValidGrant(grant)) grants.push(grant);
        }
  return grants;
}

export function describeGrant(grant: OracleGrant): string {
  return `${grant.effect} ${grant.role} for ${grant.subject} at ${grant.scope}`;
}
