/**
 * A Site Admin creates an account (`POST /admin/users`) on a closed instance without mail: it
 * is ACTIVE with a verified address and its personal pond, has no password, and the one-time
 * set-password link (24 h, only its hash stored, never logged, not in the audit entry) lets the
 * person set one and sign in. Then the directory's Site Admin filter and its folded search.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AuditEntry, EmailToken, Grant, Pond, User } from '../models/index.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { capturingLogger, startMailRelay, type MailRelay } from '../testing/mailRelay.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import type { AccountListCursor } from '../http/cursorCodec.ts';
import { listAccounts, type ListingTuning } from '../users/accountListing.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const NEW_PASSWORD = 'a password of her own';

describe('creating an account as Site Admin', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let adminId: string;
  const apiLog = capturingLogger('api');

  before(async () => {
    instance = await startTestInstance({ logger: apiLog.logger });
    // Closed registration: creating accounts is how people get in.
    admin = await completeSetup(instance, { registration: 'closed' });
    adminId = (await admin.get('/users/me')).body.id;
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const create = (body: unknown, client = admin) => client.post('/admin/users', body);

  test('anonymous callers get 401 and signed-in non-admins 403; nothing is created', async () => {
    const anonymous = await create({ username: 'nobody-anon', email: 'nobody-anon@example.org' }, new TestClient(instance.baseUrl));
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthenticated');
    // Registration is closed: the non-admin is one the admin created, signed in through its link.
    const member = await create({ username: 'member-one', email: 'member-one@example.org' });
    assert.equal(member.status, 201, member.text);
    const memberClient = new TestClient(instance.baseUrl);
    const token = new URL(member.body.link).searchParams.get('token')!;
    assert.equal((await memberClient.post('/auth/reset-password', { token, password: NEW_PASSWORD })).status, 200);
    assert.equal((await memberClient.post('/auth/login', { login: 'member-one', password: NEW_PASSWORD })).status, 200);
    const forbidden = await create({ username: 'nobody-member', email: 'nobody-member@example.org' }, memberClient);
    assert.equal(forbidden.status, 403);
    assert.equal(await User.count({ where: { username: ['nobody-anon', 'nobody-member'] } }), 0);
  });

  test('201: an ACTIVE, verified account without a password, with its personal pond; a 24 h link, uncached', async () => {
    const issuedAfter = Date.now();
    const response = await create({ username: 'Greta.Mueller', email: 'Greta@Example.org', displayName: 'Greta Müller' });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['expiresAt', 'link', 'user']);
    const { user } = response.body;
    assert.equal(user.username, 'greta.mueller', 'the username is normalized as at signup');
    assert.equal(user.email, 'greta@example.org');
    assert.equal(user.displayName, 'Greta Müller');
    assert.equal(user.status, 'ACTIVE');
    assert.equal(user.emailVerified, true, 'the Site Admin vouches for the address');
    assert.equal(user.isSiteAdmin, false);
    assert.match(response.body.link, new RegExp(`^${instance.baseUrl}/reset-password\\?token=[A-Za-z0-9_-]{40,}$`));
    const expiresAt = Date.parse(response.body.expiresAt);
    assert.ok(expiresAt >= issuedAfter + DAY_MS - 1000 && expiresAt <= Date.now() + DAY_MS + 1000, 'valid for 24 hours');
    assert.match(response.headers.get('cache-control') ?? '', /no-store/);

    const stored = (await User.findByPk(user.id))!;
    assert.equal(stored.passwordHash, null, 'no password until the person sets one');
    const pond = await Pond.findOne({ where: { kind: 'personal', ownerId: user.id } });
    assert.ok(pond, 'the personal pond is created as at signup');
    assert.equal(pond.slug, 'greta-mueller');
    assert.equal(pond.name, 'Greta Müller');
    assert.equal(await Grant.count({ where: { pondId: pond.id, subjectUserId: user.id, role: 'pond_admin' } }), 1);

    const token = new URL(response.body.link).searchParams.get('token')!;
    const row = await EmailToken.findOne({ where: { userId: user.id, purpose: 'admin_reset_password' } });
    assert.ok(row && !row.tokenHash.toString('utf8').includes(token) && row.tokenHash.length === 32, 'only the SHA-256 is stored');
    assert.ok(!apiLog.lines.join('\n').includes(token), 'no log line holds the link');

    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_created', actorId: adminId, details: { userId: user.id } } });
    assert.ok(audit, 'admin.user_created is audited');
    assert.deepEqual(audit.details, { userId: user.id, username: 'greta.mueller', siteAdmin: false });
    assert.ok(!JSON.stringify(audit.details).includes(token), 'the audit entry does not hold the link');
  });

  test('the link sets the password once through the reset route, and the person signs in', async () => {
    const response = await create({ username: 'hanna', email: 'hanna@example.org' });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.displayName, 'hanna', 'the display name defaults to the username');
    const person = new TestClient(instance.baseUrl);
    // Before the link is used there is no password to sign in with.
    assert.equal((await person.post('/auth/login', { login: 'hanna', password: NEW_PASSWORD })).status, 401);
    const token = new URL(response.body.link).searchParams.get('token')!;
    const set = await person.post('/auth/reset-password', { token, password: NEW_PASSWORD });
    assert.equal(set.status, 200, set.text);
    const login = await person.post('/auth/login', { login: 'hanna@example.org', password: NEW_PASSWORD });
    assert.equal(login.status, 200, login.text);
    assert.equal((await person.get('/users/me')).body.username, 'hanna');
    const ponds = await person.get('/ponds');
    assert.equal(ponds.status, 200, ponds.text);
    assert.ok(ponds.body.items.some((pond: { kind: string; slug: string }) => pond.kind === 'personal' && pond.slug === 'hanna'), ponds.text);
    assert.equal((await User.findByPk(response.body.user.id))!.emailVerifiedAt !== null, true, 'setting the password keeps the vouched address');
    const reuse = await new TestClient(instance.baseUrl).post('/auth/reset-password', { token, password: 'yet another password' });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error.code, 'token_invalid');
  });

  test('siteAdmin: true creates a Site Admin, and says so in the audit entry', async () => {
    const response = await create({ username: 'second-admin', email: 'second-admin@example.org', siteAdmin: true });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.isSiteAdmin, true);
    const audit = await AuditEntry.findOne({ where: { action: 'admin.user_created', details: { userId: response.body.user.id } } });
    assert.equal(audit?.details.siteAdmin, true);
  });

  test('400 names the fields with the codes signup uses; nothing is created', async () => {
    const response = await create({ username: 'x', email: 'not-an-address', displayName: '', siteAdmin: 'yes' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'validation_failed');
    const fields = response.body.error.details.fields as { path: string; code: string }[];
    assert.deepEqual(fields.map((field) => field.path).sort(), ['displayName', 'email', 'siteAdmin', 'username']);
    const signup = await new TestClient(instance.baseUrl).post('/auth/signup', { username: 'x', email: 'not-an-address', password: 'a long enough password', displayName: '' });
    const signupCodes = new Map((signup.body.error.details.fields as { path: string; code: string }[]).map((field) => [field.path, field.code]));
    for (const path of ['username', 'email', 'displayName']) {
      assert.equal(fields.find((field) => field.path === path)?.code, signupCodes.get(path), `${path} has signup's code`);
    }
    assert.equal((await create({ email: 'only-mail@example.org' })).status, 400, 'the username is required');
    assert.equal(await User.count({ where: { email: 'only-mail@example.org' } }), 0);
  });

  test('409 username_taken and email_taken, as at signup (case-insensitive); nothing is created or audited', async () => {
    const { credentials } = await createVerifiedUserOnClosed();
    const auditsBefore = await AuditEntry.count({ where: { action: 'admin.user_created' } });
    const username = await create({ username: credentials.username.toUpperCase(), email: 'fresh-address@example.org' });
    assert.equal(username.status, 409);
    assert.equal(username.body.error.code, 'username_taken');
    const email = await create({ username: 'fresh-name', email: credentials.email.toUpperCase() });
    assert.equal(email.status, 409);
    assert.equal(email.body.error.code, 'email_taken');
    assert.equal(await User.count({ where: { username: 'fresh-name' } }), 0);
    assert.equal(await AuditEntry.count({ where: { action: 'admin.user_created' } }), auditsBefore);
  });

  /** An existing account made by the admin (signup is closed here). */
  async function createVerifiedUserOnClosed() {
    const credentials = { username: 'taken-name', email: 'taken@example.org' };
    assert.equal((await create(credentials)).status, 201);
    return { credentials };
  }
});

describe('creating an account on an instance with mail', () => {
  let instance: TestInstance;
  let admin: TestClient;
  let relay: MailRelay;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
    relay = await startMailRelay(instance);
  });
  after(async () => {
    await relay.close();
    await instance.close();
  });

  test('the account is ACTIVE and verified all the same, and nothing is mailed: the link is only in the answer', async () => {
    const response = await admin.post('/admin/users', { username: 'mailed-not', email: 'mailed-not@example.org' });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.user.status, 'ACTIVE');
    assert.equal(response.body.user.emailVerified, true);
    // A mail asked for afterwards arrives; one for the new account would have been queued first.
    const marker = await new TestClient(instance.baseUrl).post('/auth/signup', { username: 'mail-marker', email: 'mail-marker@example.org', password: 'a long enough password' });
    assert.equal(marker.status, 201, marker.text);
    await relay.link('mail-marker@example.org', 'verify-email');
    assert.equal(relay.smtp.messages.filter((message) => message.to.includes('mailed-not@example.org')).length, 0, 'no mail to the new account');
  });
});

describe('the directory: Site Admin filter and folded search', () => {
  let instance: TestInstance;
  let admin: TestClient;

  before(async () => {
    instance = await startTestInstance();
    admin = await completeSetup(instance);
  });
  after(() => instance.close());
  beforeEach(() => resetRateLimits(instance));

  const usernames = (response: { body: { items: { username: string }[] } }) => response.body.items.map((item) => item.username);
  const list = async (query: string) => {
    const response = await admin.get(`/admin/users?${query}`);
    assert.equal(response.status, 200, response.text);
    return response;
  };

  test('"muller" and "MÜLLER" find "Müller" by display name; a part of the e-mail finds its account', async () => {
    await admin.post('/admin/users', { username: 'fold-anna', email: 'anna.schmidt@dorf.example', displayName: 'Anna Müller' });
    await admin.post('/admin/users', { username: 'fold-bert', email: 'bert@dorf.example', displayName: 'Bert Mühlberg' });
    await admin.post('/admin/users', { username: 'fold-cem', email: 'cem@elsewhere.example', displayName: 'Cem Çelik' });
    assert.deepEqual(usernames(await list('q=muller')), ['fold-anna']);
    assert.deepEqual(usernames(await list(`q=${encodeURIComponent('MÜLLER')}`)), ['fold-anna']);
    assert.deepEqual(usernames(await list('q=celik')), ['fold-cem'], 'Ç folds to c');
    assert.deepEqual(usernames(await list('q=SCHMIDT%40DORF')), ['fold-anna'], 'a part of the e-mail, any case');
    assert.deepEqual(usernames(await list('q=dorf.example')), ['fold-anna', 'fold-bert']);
    assert.deepEqual(usernames(await list(`q=${encodeURIComponent('Mu\u0308ller')}`)), ['fold-anna'], 'typed decomposed (u + combining diaeresis)');
    // Taken literally: `_` is no wildcard, and no match spans two fields.
    assert.deepEqual(usernames(await list('q=fold_')), []);
    assert.deepEqual(usernames(await list(`q=${encodeURIComponent('fold-anna anna')}`)), []);
  });

  test('ß finds ss and ss finds ß; a search is matched whole, not by its pieces', async () => {
    await admin.post('/admin/users', { username: 'sharp-s', email: 'gert@dorf.example', displayName: 'Gert Straßer' });
    await admin.post('/admin/users', { username: 'pieces-abcxdef', email: 'pieces@dorf.example', displayName: 'Pia Pieces' });
    assert.deepEqual(usernames(await list('q=strasser')), ['sharp-s']);
    assert.deepEqual(usernames(await list(`q=${encodeURIComponent('STRAẞER')}`)), ['sharp-s'], 'capital sharp s');
    assert.deepEqual(usernames(await list(`q=${encodeURIComponent('straßer')}`)), ['sharp-s']);
    // The trigram index is asked for every third trigram ('%abc%def%'); the account holds those, not the search.
    assert.deepEqual(usernames(await list('q=abcdef')), []);
    assert.deepEqual(usernames(await list('q=abcxdef')), ['pieces-abcxdef']);
  });

  test('siteAdmin=true lists only Site Admins, siteAdmin=false the others; 400 for another value', async () => {
    const extra = await admin.post('/admin/users', { username: 'role-admin', email: 'role-admin@example.org', siteAdmin: true });
    assert.equal(extra.status, 201, extra.text);
    await admin.post('/admin/users', { username: 'role-member', email: 'role-member@example.org' });
    assert.deepEqual(usernames(await list('siteAdmin=true')), ['admin', 'role-admin']);
    const others = usernames(await list('siteAdmin=false&q=role-'));
    assert.deepEqual(others, ['role-member']);
    assert.ok(!usernames(await list('siteAdmin=false')).includes('admin'));
    assert.deepEqual(usernames(await list('siteAdmin=true&status=ACTIVE&q=ROLE')), ['role-admin'], 'filters combine');
    const bad = await admin.get('/admin/users?siteAdmin=yes');
    assert.equal(bad.status, 400);
  });

  test('keyset pages over a filtered, folded search are stable: no account twice, none left out', async () => {
    const names = ['page-e', 'page-a', 'page-d', 'page-c', 'page-b'];
    for (const name of names) await admin.post('/admin/users', { username: name, email: `${name}@example.org`, displayName: `Jürgen ${name}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await list(`q=jurgen&siteAdmin=false&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(response.body.items.length <= 2);
      seen.push(...usernames(response));
      cursor = response.body.nextCursor;
      // An account created between pages sorts before the cursor and does not shift the pages.
      if (seen.length === 2) await admin.post('/admin/users', { username: 'page-0', email: 'page-0@example.org', displayName: 'Jürgen zero' });
    } while (cursor);
    assert.deepEqual(seen, ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']);
  });

  test('a search with more than a thousand matches pages in the same order as one with few', async () => {
    // Many accounts at once, straight into the table: the listing reads a search of over 1,000
    // matches another way (api/users/accountListing.ts), which must page alike.
    await instance.services.sequelize.query(`
      INSERT INTO users (username, email, display_name, status)
      SELECT 'bulk-' || lpad(i::text, 4, '0'), 'bulk-' || i || '@example.org', 'Bülow ' || i, CASE WHEN i % 7 = 0 THEN 'disabled' ELSE 'ACTIVE' END
        FROM generate_series(1, 1100) AS i`);
    const pageThrough = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await list(`${query}&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...usernames(response));
        cursor = response.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const expected = Array.from({ length: 1100 }, (_, index) => `bulk-${String(index + 1).padStart(4, '0')}`);
    assert.deepEqual(await pageThrough('q=bulow'), expected, 'over a thousand matches');
    assert.deepEqual(await pageThrough('q=bulk-0'), expected.slice(0, 999), 'fewer than a thousand');
    assert.deepEqual(await pageThrough('q=BULK&status=disabled'), expected.filter((_, index) => (index + 1) % 7 === 0));

    // Every read of the listing pages alike (api/users/accountListing.ts): the walk bounded to a
    // window that holds the page, the trigram index's matches ordered (first, or after a window
    // too small), and the unbounded walk after more matches than the trigram read orders.
    const pageWith = async (options: { q: string; status?: 'disabled' }, tuning: ListingTuning) => {
      const seen: string[] = [];
      let cursor: AccountListCursor | undefined;
      do {
        const page = await listAccounts({ ...options, limit: 200, cursor }, tuning);
        seen.push(...page.users.map((user) => user.username));
        cursor = page.next ?? undefined;
      } while (cursor);
      return seen;
    };
    const tunings: ListingTuning[] = [
      { window: 5000, manyMatches: 10_000, firstRead: 'walk' },
      { window: 50, manyMatches: 10_000, firstRead: 'walk' },
      { window: 5000, manyMatches: 10_000, firstRead: 'trigram' },
      { window: 5000, manyMatches: 10, firstRead: 'trigram' },
      { window: 5000, manyMatches: 10_000 },
    ];
    for (const tuning of tunings) {
      assert.deepEqual(await pageWith({ q: 'bulow' }, tuning), expected, `over a thousand matches (${JSON.stringify(tuning)})`);
      assert.deepEqual(await pageWith({ q: 'bulk-0' }, tuning), expected.slice(0, 999), `fewer than a thousand (${JSON.stringify(tuning)})`);
      assert.deepEqual(await pageWith({ q: 'BULK', status: 'disabled' }, tuning), expected.filter((_, index) => (index + 1) % 7 === 0));
    }
  });

  test('the filtered, searched list answers 401 to anonymous callers and 403 to non-admins', async () => {
    const { client } = await createVerifiedUser(instance);
    assert.equal((await client.get('/admin/users?q=muller')).status, 403);
    assert.equal((await new TestClient(instance.baseUrl).get('/admin/users?siteAdmin=true')).status, 401);
  });
});
