/**
 * The resolver against the spec's rules (api/testing/accessOracle.ts): every subject × role ×
 * scope (pond, label, ancestor label, page) × effect, on a closed and an open pond, for a
 * member, another signed-in user and an anonymous caller, for read and write.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BACKGROUNDS,
  ORACLE_ACTORS,
  describeGrant,
  everyValidGrant,
  expectedVerdict,
  type OracleActor,
  type OracleGrant,
} from '../testing/accessOracle.ts';
import { ANONYMOUS, SubjectAccess, effectivePondRole, labelGovernsAccess, pondVisible, type AccessSubject, type GrantRule, type PondAccessData } from './grantResolution.ts';

const POND = '00000000-0000-4000-8000-000000000001';
const OWNER = '00000000-0000-4000-8000-0000000000aa';
const MEMBER = '00000000-0000-4000-8000-0000000000bb';
const OTHER = '00000000-0000-4000-8000-0000000000cc';
const PAGE = '00000000-0000-4000-8000-000000000a01';
const OTHER_PAGE = '00000000-0000-4000-8000-000000000b02';
const LABEL = '00000000-0000-4000-8000-00000000c001';
const ANCESTOR_LABEL = '00000000-0000-4000-8000-00000000c002';

const SUBJECTS: Record<OracleActor, AccessSubject> = {
  member: { userId: MEMBER, signedIn: true, isSiteAdmin: false },
  other: { userId: OTHER, signedIn: true, isSiteAdmin: false },
  anonymous: ANONYMOUS,
};

let grantCounter = 0;
function toRule(grant: OracleGrant): GrantRule {
  grantCounter += 1;
  return {
    id: `grant-${grantCounter}`,
    subjectType: grant.subject === 'member' ? 'user' : grant.subject,
    subjectUserId: grant.subject === 'member' ? MEMBER : null,
    role: grant.role,
    scopeType: grant.scope === 'ancestor-label' ? 'label' : grant.scope,
    scopeLabelId: grant.scope === 'label' ? LABEL : grant.scope === 'ancestor-label' ? ANCESTOR_LABEL : null,
    scopePageId: grant.scope === 'page' ? PAGE : null,
    effect: grant.effect,
  };
}

function pondData(grants: GrantRule[], overrides: Partial<PondAccessData> = {}): PondAccessData {
  const ownerGrant: GrantRule = { id: 'owner', subjectType: 'user', subjectUserId: OWNER, role: 'pond_admin', scopeType: 'pond', scopeLabelId: null, scopePageId: null, effect: 'allow' };
  return {
    pondId: POND,
    kind: 'shared',
    ownerId: OWNER,
    trashedAt: null,
    grants: [ownerGrant, ...grants],
    labelParents: new Map([
      [LABEL, ANCESTOR_LABEL],
      [ANCESTOR_LABEL, null],
    ]),
    pageLabels: new Map([[PAGE, [LABEL]]]),
    ...overrides,
  };
}

const livePage = { id: PAGE, trashedAt: null };

describe('the resolver matches the spec table', () => {
  for (const [background, backgroundGrants] of Object.entries(BACKGROUNDS)) {
    for (const grant of everyValidGrant()) {
      test(`${background}: ${describeGrant(grant)}`, () => {
        const grants = [...backgroundGrants, grant];
        const data = pondData(grants.map(toRule));
        for (const actor of ORACLE_ACTORS) {
          const access = new SubjectAccess(data, SUBJECTS[actor]);
          for (const capability of ['read', 'write'] as const) {
            assert.equal(access.page(livePage, capability).allowed, expectedVerdict(grants, actor, capability), `${actor} ${capability}`);
          }
        }
      });
    }
  }
});

describe('named cases', () => {
  test('deny at page beats allow at pond', () => {
    const data = pondData([
      toRule({ subject: 'member', role: 'editor', scope: 'pond', effect: 'allow' }),
      toRule({ subject: 'member', role: 'reader', scope: 'page', effect: 'deny' }),
    ]);
    const verdict = new SubjectAccess(data, SUBJECTS.member).page(livePage, 'read');
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.level, 'page');
    assert.equal(verdict.grant?.effect, 'deny');
  });

  test('allow at page beats deny at label', () => {
    const data = pondData([
      toRule({ subject: 'signed-in', role: 'reader', scope: 'label', effect: 'deny' }),
      toRule({ subject: 'member', role: 'editor', scope: 'page', effect: 'allow' }),
    ]);
    const access = new SubjectAccess(data, SUBJECTS.member);
    assert.equal(access.page(livePage, 'write').allowed, true);
    assert.equal(access.page(livePage, 'write').level, 'page');
    assert.equal(new SubjectAccess(data, SUBJECTS.other).page(livePage, 'read').level, 'label');
  });

  test('a deny at the ancestor label reaches a page that carries only the child label', () => {
    const data = pondData([
      toRule({ subject: 'public', role: 'reader', scope: 'pond', effect: 'allow' }),
      toRule({ subject: 'public', role: 'reader', scope: 'ancestor-label', effect: 'deny' }),
    ]);
    const verdict = new SubjectAccess(data, ANONYMOUS).page(livePage, 'read');
    assert.deepEqual([verdict.allowed, verdict.level], [false, 'label']);
    assert.equal(new SubjectAccess(data, ANONYMOUS).page({ id: OTHER_PAGE, trashedAt: null }, 'read').allowed, true);
  });

  test('within one level deny wins over allow, whatever the subject', () => {
    const data = pondData([
      toRule({ subject: 'member', role: 'editor', scope: 'page', effect: 'allow' }),
      toRule({ subject: 'public', role: 'editor', scope: 'page', effect: 'deny' }),
    ]);
    const access = new SubjectAccess(data, SUBJECTS.member);
    assert.equal(access.page(livePage, 'write').allowed, false);
    assert.equal(access.page(livePage, 'read').allowed, true, 'deny editor leaves reading alone');
  });

  test('no grant at all is closed, with level none', () => {
    const verdict = new SubjectAccess(pondData([]), SUBJECTS.member).page(livePage, 'read');
    assert.deepEqual(verdict, { allowed: false, level: 'none', reason: 'no_grant', grant: null });
  });

  test('a Site Admin bypasses everything, also denies and a trashed pond', () => {
    const data = pondData([toRule({ subject: 'public', role: 'reader', scope: 'page', effect: 'deny' })], { trashedAt: new Date() });
    const verdict = new SubjectAccess(data, { userId: OTHER, signedIn: true, isSiteAdmin: true }).page({ id: PAGE, trashedAt: new Date() }, 'write');
    assert.deepEqual(verdict, { allowed: true, level: 'none', reason: 'site_admin', grant: null });
  });

  test('a pond admin may do everything in the pond, despite page denies', () => {
    const data = pondData([toRule({ subject: 'public', role: 'reader', scope: 'page', effect: 'deny' })]);
    const verdict = new SubjectAccess(data, { userId: OWNER, signedIn: true, isSiteAdmin: false }).page(livePage, 'write');
    assert.equal(verdict.allowed, true);
    assert.equal(verdict.reason, 'pond_admin');
  });

  test('a trashed page needs write capability to be seen at all', () => {
    const data = pondData([toRule({ subject: 'signed-in', role: 'reader', scope: 'pond', effect: 'allow' }), toRule({ subject: 'member', role: 'editor', scope: 'pond', effect: 'allow' })]);
    const trashed = { id: PAGE, trashedAt: new Date() };
    assert.equal(new SubjectAccess(data, SUBJECTS.other).page(trashed, 'read').allowed, false);
    assert.equal(new SubjectAccess(data, SUBJECTS.member).page(trashed, 'read').allowed, true);
  });

  test('a trashed pond is invisible to everyone but its pond admins', () => {
    const data = pondData([toRule({ subject: 'public', role: 'editor', scope: 'pond', effect: 'allow' })], { trashedAt: new Date() });
    for (const actor of ORACLE_ACTORS) {
      const access = new SubjectAccess(data, SUBJECTS[actor]);
      assert.equal(pondVisible(access), false, actor);
      assert.equal(access.page(livePage, 'read').reason, 'pond_trashed');
    }
    assert.equal(pondVisible(new SubjectAccess(data, { userId: OWNER, signedIn: true, isSiteAdmin: false })), true);
  });

  test('a page-scope allow makes the pond visible without a pond-level role', () => {
    const data = pondData([toRule({ subject: 'member', role: 'reader', scope: 'page', effect: 'allow' })]);
    const access = new SubjectAccess(data, SUBJECTS.member);
    assert.equal(pondVisible(access), true);
    assert.equal(effectivePondRole(access), null);
    assert.equal(pondVisible(new SubjectAccess(data, SUBJECTS.other)), false);
  });

  test('the effective pond role takes pond-level denies into account', () => {
    const data = pondData([
      toRule({ subject: 'member', role: 'editor', scope: 'pond', effect: 'allow' }),
      toRule({ subject: 'signed-in', role: 'editor', scope: 'pond', effect: 'deny' }),
    ]);
    assert.equal(effectivePondRole(new SubjectAccess(data, SUBJECTS.member)), 'reader');
    assert.equal(effectivePondRole(new SubjectAccess(data, { userId: OWNER, signedIn: true, isSiteAdmin: false })), 'pond_admin');
  });

  test('labelGovernsAccess sees grants on the label and on its ancestors only', () => {
    const child = '00000000-0000-4000-8000-00000000c003';
    const base = pondData([], { labelParents: new Map([[child, LABEL], [LABEL, ANCESTOR_LABEL], [ANCESTOR_LABEL, null]]) });
    assert.equal(labelGovernsAccess(base, child), false);
    const withGrant = { ...base, grants: [...base.grants, toRule({ subject: 'public', role: 'reader', scope: 'ancestor-label', effect: 'allow' })] };
    assert.equal(labelGovernsAccess(withGrant, child), true);
    assert.equal(labelGovernsAccess(withGrant, ANCESTOR_LABEL), true);
    const onChild = { ...base, grants: [...base.grants, { ...toRule({ subject: 'public', role: 'reader', scope: 'label', effect: 'allow' }), scopeLabelId: child }] };
    assert.equal(labelGovernsAccess(onChild, LABEL), false, 'a grant below does not govern the parent');
  });
});
