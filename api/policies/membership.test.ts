/**
 * Membership semantics, in the one place they are defined: which grants make a listed member
 * and their granted role, the effective role (a Site Admin's bypass aside), the pseudo
 * subjects' roles, and who belongs to a pond (the `member` capability and `GET /ponds`):
 * grants naming the user or all signed-in users that let them see the pond, not public ones;
 * and who reads the whole pond by their own grants (the label tree they are shown).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GrantScopeType, GrantSubjectType, PondRole } from '../models/index.ts';
import { ANONYMOUS, SubjectAccess, type AccessSubject, type GrantRule, type PondAccessData } from './grantResolution.ts';
import { belongsToPond, effectiveRoleOfUser, everyoneRoles, grantedRoleOf, higherRole, isMembershipGrant, membershipGrant, ownPondRole, readsWholePond } from './membership.ts';

const POND = '00000000-0000-4000-8000-000000000001';
const OWNER = '00000000-0000-4000-8000-0000000000aa';
const USER = '00000000-0000-4000-8000-0000000000bb';
const PAGE = '00000000-0000-4000-8000-000000000a01';
const LABEL = '00000000-0000-4000-8000-00000000c001';

const user = (userId: string, isSiteAdmin = false): AccessSubject => ({ userId, signedIn: true, isSiteAdmin });

let counter = 0;
function grant(subject: GrantSubjectType, role: PondRole, options: { scope?: GrantScopeType; effect?: 'allow' | 'deny'; userId?: string } = {}): GrantRule {
  counter += 1;
  const scope = options.scope ?? 'pond';
  return {
    id: `grant-${counter}`,
    subjectType: subject,
    subjectUserId: subject === 'user' ? (options.userId ?? USER) : null,
    role,
    scopeType: scope,
    scopeLabelId: scope === 'label' ? LABEL : null,
    scopePageId: scope === 'page' ? PAGE : null,
    effect: options.effect ?? 'allow',
  };
}

function pond(grants: GrantRule[], overrides: Partial<PondAccessData> = {}): PondAccessData {
  return {
    pondId: POND,
    kind: 'shared',
    ownerId: OWNER,
    trashedAt: null,
    grants: [grant('user', 'pond_admin', { userId: OWNER }), ...grants],
    labelParents: new Map([[LABEL, null]]),
    pageLabels: new Map([[PAGE, [LABEL]]]),
    ...overrides,
  };
}

const belongs = (data: PondAccessData, subject: AccessSubject) => belongsToPond(new SubjectAccess(data, subject));

describe('membership', () => {
  test('a membership grant is a user-subject, pond-scope allow; the granted role is the highest of them', () => {
    assert.equal(isMembershipGrant(grant('user', 'reader')), true);
    assert.equal(isMembershipGrant(grant('user', 'reader', { effect: 'deny' })), false);
    assert.equal(isMembershipGrant(grant('user', 'editor', { scope: 'page' })), false);
    assert.equal(isMembershipGrant(grant('signed-in', 'editor')), false);
    assert.equal(isMembershipGrant(grant('public', 'reader')), false);
    assert.equal(isMembershipGrant(membershipGrant(POND, USER, 'editor', OWNER)), true, 'the row the commands create is one');
    assert.equal(grantedRoleOf([grant('user', 'reader'), grant('user', 'editor'), grant('user', 'pond_admin', { effect: 'deny' })]), 'editor');
    assert.equal(grantedRoleOf([grant('user', 'editor', { scope: 'label' })]), null);
    assert.equal(higherRole('reader', 'pond_admin'), 'pond_admin');
    assert.equal(higherRole(null, 'reader'), 'reader');
    assert.equal(higherRole('editor', null), 'editor');
  });

  test('the effective role counts denies and all-signed-in grants, never a Site Admin bypass', () => {
    const data = pond([grant('user', 'editor'), grant('signed-in', 'editor', { effect: 'deny' })]);
    assert.equal(effectiveRoleOfUser(data, USER), 'reader');
    assert.equal(effectiveRoleOfUser(pond([grant('signed-in', 'editor')]), USER), 'editor');
    assert.equal(effectiveRoleOfUser(data, OWNER), 'pond_admin');
    const admin = new SubjectAccess(pond([]), user('00000000-0000-4000-8000-0000000000ad', true));
    assert.equal(admin.pond('admin').allowed, true, 'the Site Admin may do everything');
    assert.equal(ownPondRole(admin), null, 'but holds no role of their own');
  });

  test('everyone: the highest pond-scope allow of all signed-in users and of the public', () => {
    const data = pond([
      grant('signed-in', 'reader'),
      grant('signed-in', 'editor'),
      grant('signed-in', 'pond_admin', { scope: 'page' }),
      grant('public', 'editor', { effect: 'deny' }),
      grant('public', 'reader'),
    ]);
    assert.deepEqual(everyoneRoles(data), { signedIn: 'editor', public: 'reader' });
    assert.deepEqual(everyoneRoles(pond([])), { signedIn: null, public: null });
  });

  test('a grant naming the user or all signed-in users that lets them see the pond makes them belong to it', () => {
    assert.equal(belongs(pond([grant('user', 'reader')]), user(USER)), true, 'pond-level reader');
    assert.equal(belongs(pond([grant('signed-in', 'reader')]), user(USER)), true, 'all signed-in users');
    assert.equal(belongs(pond([]), user(OWNER)), true, 'the owner');
    // Decided: a user reached only by a page- or label-scope allow belongs (the pond is in their list too).
    assert.equal(belongs(pond([grant('user', 'editor', { scope: 'page' })]), user(USER)), true, 'page scope');
    assert.equal(belongs(pond([grant('signed-in', 'reader', { scope: 'label' })]), user(USER)), true, 'label scope, all signed-in');
  });

  test('public reading is not membership, and grants that do not show the pond make nobody a member', () => {
    const open = pond([grant('public', 'editor')]);
    assert.equal(belongs(open, user(USER)), false, 'a public pond-level grant');
    assert.equal(belongs(pond([grant('public', 'reader', { scope: 'page' })]), user(USER)), false, 'a public page grant');
    assert.equal(belongs(pond([grant('public', 'reader'), grant('user', 'reader', { scope: 'page', effect: 'deny' })]), user(USER)), false, 'a deny naming them on a public pond');
    assert.equal(belongs(pond([grant('public', 'reader'), grant('signed-in', 'editor', { effect: 'deny' })]), user(USER)), false);
    assert.equal(belongs(pond([grant('user', 'reader', { effect: 'deny' })]), user(USER)), false, 'a deny alone');
    assert.equal(belongs(pond([grant('user', 'reader'), grant('user', 'reader', { effect: 'deny' })]), user(USER)), false, 'allow and deny at pond level: deny wins');
    assert.equal(belongs(pond([grant('signed-in', 'reader'), grant('public', 'reader', { effect: 'deny' })]), user(USER)), false, 'a public deny hides the pond');
    assert.equal(belongs(pond([grant('signed-in', 'reader'), grant('public', 'editor')]), user(USER)), true, 'a public grant beside one that counts');
    assert.equal(belongs(pond([grant('signed-in', 'editor')]), ANONYMOUS), false, 'anonymous callers never');
    assert.equal(belongs(pond([grant('signed-in', 'editor')]), { userId: null, signedIn: true, isSiteAdmin: false }), false, 'the pseudo subject is nobody');
  });

  test('a Site Admin belongs only through their own grants; a trashed pond keeps only its pond admins', () => {
    const siteAdmin = user('00000000-0000-4000-8000-0000000000ad', true);
    assert.equal(belongs(pond([]), siteAdmin), false);
    assert.equal(belongs(pond([grant('signed-in', 'reader')]), siteAdmin), true);
    const trashed = pond([grant('user', 'editor')], { trashedAt: new Date() });
    assert.equal(belongs(trashed, user(USER)), false);
    assert.equal(belongs(trashed, user(OWNER)), true);
  });

  test('reading the whole pond takes pond-level read by grants of their own (or Site Admin); public reading and scoped guests do not', () => {
    const whole = (data: PondAccessData, subject: AccessSubject) => readsWholePond(new SubjectAccess(data, subject));
    assert.equal(whole(pond([grant('user', 'reader')]), user(USER)), true, 'pond-level reader');
    assert.equal(whole(pond([grant('signed-in', 'reader')]), user(USER)), true, 'all signed-in users');
    assert.equal(whole(pond([]), user(OWNER)), true, 'the owner');
    assert.equal(whole(pond([]), user('00000000-0000-4000-8000-0000000000ad', true)), true, 'a Site Admin');
    assert.equal(whole(pond([grant('user', 'editor', { scope: 'page' })]), user(USER)), false, 'a page-scope guest belongs, but reads only part');
    assert.equal(whole(pond([grant('user', 'reader', { scope: 'label' })]), user(USER)), false, 'a label-scope guest');
    assert.equal(whole(pond([grant('public', 'reader')]), ANONYMOUS), false, 'anonymous, even on a public pond');
    assert.equal(whole(pond([grant('public', 'reader'), grant('user', 'reader', { scope: 'page' })]), user(USER)), false, 'a page guest of a public pond: the pond level is public reading');
    assert.equal(whole(pond([grant('signed-in', 'reader'), grant('public', 'reader', { effect: 'deny' })]), user(USER)), false, 'a public deny at pond level');
    assert.equal(whole(pond([grant('user', 'reader'), grant('public', 'editor')]), user(USER)), true, 'a public grant beside one that counts');
  });
});
