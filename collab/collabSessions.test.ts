/**
 * Collab connections live no longer than the credential that opened them: disabling or
 * deleting a user, logout, a password reset or change (for the other sessions) and the
 * session's expiry close the sockets within 5 s (`user_sessions_changed`, then the policy
 * module), and the reconnect is refused.
 * An anonymous reader of a public page holds no session and is left alone. Each test prints
 * how long the close took.
 */
import assert from 'node:assert/strict';
import { before, describe, test, type TestContext } from 'node:test';
import { issueEmailToken } from '../api/auth/emailTokens.ts';
import { Session, User } from '../api/models/index.ts';
import { seedGrant, seedPage, seedSharedPond } from '../api/testing/accessFixtures.ts';
import { createVerifiedUser, resetRateLimits } from '../api/testing/fixtures.ts';
import { TestClient } from '../api/testing/testClient.ts';
import { collabToken, editorPool, useCollabCast, waitFor, type TestEditor } from './testing/collabHarness.ts';
import { ProtocolClient } from './testing/protocolClient.ts';

const CLOSE_BOUND_MS = 5000;

describe('collab connections and the sessions that opened them', () => {
  const cast = useCollabCast();
  const { open, closeAll } = editorPool(cast);

  before(async () => {
    await User.update({ isSiteAdmin: true }, { where: { id: cast.owner.user.id } });
  });

  /** A fresh user, signed in, editor of a pond of the owner's with two pages (the first readable by the public). */
  async function member() {
    await resetRateLimits(cast.instance);
    const person = await createVerifiedUser(cast.instance);
    const pond = await seedSharedPond(cast.owner.user.id);
    await seedGrant(pond.id, { subject: { type: 'user', id: person.user.id }, role: 'editor' });
    const pages = [await seedPage(pond.id, 'First'), await seedPage(pond.id, 'Second')] as const;
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: pages[0].id } });
    /** Another browser of the same user: a session of its own. */
    const signInAgain = async () => {
      const client = new TestClient(cast.instance.baseUrl);
      const login = await client.post('/auth/login', { login: person.credentials.username, password: person.credentials.password });
      assert.equal(login.status, 200, login.text);
      return client;
    };
    return { ...person, pond, pages, signInAgain };
  }

  /** Waits until every editor's socket closed (within the bound) and prints how long each took after `since`. */
  async function closedWithinBound(t: TestContext, what: string, since: number, editors: TestEditor[]): Promise<void> {
    await waitFor(() => editors.every((editor) => editor.seen.closed), CLOSE_BOUND_MS + 1000, `${what}: socket still open`);
    for (const editor of editors) {
      const latency = editor.seen.closedAt! - since;
      t.diagnostic(`${what}: socket closed ${latency} ms after it`);
      assert.ok(latency < CLOSE_BOUND_MS, `${what}: closed after ${latency} ms`);
    }
  }

  /**
   * An editor on the user's second page whose session runs out `lifetimeMs` from now. The
   * token is issued while the session is fresh (issuing it would extend a short one); the
   * session is shortened right after, before the socket opens.
   */
  async function openWithShortSession(user: Awaited<ReturnType<typeof member>>, lifetimeMs: number): Promise<{ editor: TestEditor; sessionId: string; expiresAt: number }> {
    const sessionId = user.client.sessionCookie!.split('.')[0]!;
    let expiresAt = 0;
    const editor = await open(user.client, user.pages[1].id, {
      token: async () => {
        const token = await collabToken(user.client, user.pages[1].id);
        if (expiresAt === 0) {
          expiresAt = Date.now() + lifetimeMs;
          await Session.update({ expiresAt: new Date(expiresAt) }, { where: { id: sessionId } });
        }
        return token;
      },
    });
    return { editor, sessionId, expiresAt };
  }

  const refused = (editors: TestEditor[]) => waitFor(() => editors.every((editor) => editor.seen.refused), 5000, 'the reconnect was not refused');

  test('disabling a user closes every socket of theirs within 5 s and refuses the reconnect; an anonymous reader stays', async (t) => {
    t.after(closeAll);
    const user = await member();
    const first = await open(user.client, user.pages[0].id);
    const second = await open(user.client, user.pages[1].id);
    const visitor = await open(cast.anonymous, user.pages[0].id);
    const started = Date.now();
    const disabled = await cast.owner.client.post(`/admin/users/${user.user.id}/disable`);
    assert.equal(disabled.status, 200, disabled.text);
    await closedWithinBound(t, 'disable', started, [first, second]);
    await refused([second]);
    // On the public page the browser is back as what it is now: an anonymous reader.
    await waitFor(() => first.provider.isAuthenticated && first.provider.authorizedScope === 'readonly', 5000, 'the public page did not come back read-only');
    // The public reader on the same page holds no session: untouched, and still in sync.
    assert.equal(visitor.seen.closed, false);
    const writer = await open(cast.owner.client, user.pages[0].id);
    writer.type('after the disable');
    await waitFor(() => visitor.text() === 'after the disable', 5000, 'the anonymous reader stopped receiving edits');
    assert.equal(visitor.seen.closed, false);
  });

  test('deleting a user (DELETE /admin/users/:id) closes every socket of theirs within 5 s; the reconnect is refused, or anonymous on a public page', async (t) => {
    t.after(closeAll);
    const user = await member();
    const otherBrowser = await user.signInAgain();
    // A public page of a pond where the user holds no grant: no pond notice reaches it, only the sessions' end.
    const elsewhere = await seedSharedPond(cast.owner.user.id);
    const publicPage = await seedPage(elsewhere.id, 'Public elsewhere');
    await seedGrant(elsewhere.id, { subject: { type: 'public' }, role: 'reader', scope: { type: 'page', id: publicPage.id } });
    const editors = [await open(user.client, user.pages[1].id), await open(otherBrowser, user.pages[1].id), await open(user.client, publicPage.id)];
    const started = Date.now();
    const deleted = await cast.owner.client.request('DELETE', `/admin/users/${user.user.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    await closedWithinBound(t, 'delete', started, editors);
    await refused(editors.slice(0, 2));
    // The public page lets the browser back in as what it is now: an anonymous reader.
    const reader = editors[2]!;
    await waitFor(() => reader.provider.isAuthenticated && reader.provider.authorizedScope === 'readonly', 5000, 'the public page did not come back read-only');
  });

  test('logout closes the sockets that session opened within 5 s, and only those', async (t) => {
    t.after(closeAll);
    const user = await member();
    const otherBrowser = await user.signInAgain();
    const loggingOut = await open(user.client, user.pages[1].id);
    const staying = await open(otherBrowser, user.pages[1].id);
    const started = Date.now();
    const logout = await user.client.post('/auth/logout');
    assert.equal(logout.status, 204, logout.text);
    await closedWithinBound(t, 'logout', started, [loggingOut]);
    await refused([loggingOut]);
    assert.equal(staying.seen.closed, false, 'the other session of the same user was closed too');
    staying.type('still signed in');
    await staying.allSynced();
  });

  test('a password reset ends every session, and closes every socket of the user within 5 s', async (t) => {
    t.after(closeAll);
    const user = await member();
    const otherBrowser = await user.signInAgain();
    const editors = [await open(user.client, user.pages[1].id), await open(otherBrowser, user.pages[1].id)];
    const { token } = await cast.instance.services.sequelize.transaction((transaction) => issueEmailToken(user.user.id, 'reset_password', transaction));
    const started = Date.now();
    const reset = await cast.anonymous.post('/auth/reset-password', { token, password: 'a new and long enough password' });
    assert.equal(reset.status, 200, reset.text);
    await closedWithinBound(t, 'password reset', started, editors);
    await refused(editors);
  });

  test('a password change closes the sockets of the user\'s other sessions within 5 s, and keeps those of the session that made it', async (t) => {
    t.after(closeAll);
    const user = await member();
    const otherBrowser = await user.signInAgain();
    const elsewhere = await open(otherBrowser, user.pages[1].id);
    const here = await open(user.client, user.pages[1].id);
    const started = Date.now();
    const change = await user.client.post('/users/me/password', { currentPassword: user.credentials.password, newPassword: 'a new and long enough password' });
    assert.equal(change.status, 204, change.text);
    await closedWithinBound(t, 'password change', started, [elsewhere]);
    await refused([elsewhere]);
    assert.equal(here.seen.closed, false, 'the socket of the session that changed the password was closed');
    here.type('still signed in');
    await here.allSynced();
  });

  test("the socket closes within 5 s of the session's expiry, and the reconnect is refused", async (t) => {
    t.after(closeAll);
    const { editor, expiresAt } = await openWithShortSession(await member(), 3000);
    assert.equal(editor.seen.closed, false);
    await closedWithinBound(t, 'session expiry', expiresAt, [editor]);
    assert.ok(editor.seen.closedAt! >= expiresAt, 'closed before the session expired');
    await refused([editor]);
  });

  test('a session extended while its socket is open keeps the socket open past the old expiry', async (t) => {
    t.after(closeAll);
    const user = await member();
    const { editor, sessionId, expiresAt } = await openWithShortSession(user, 2000);
    // Using the API in the second half of the session's lifetime extends it (sessions slide).
    const used = await user.client.get('/auth/session');
    assert.equal(used.status, 200, used.text);
    assert.ok((await Session.findByPk(sessionId))!.expiresAt.getTime() > expiresAt + 86_400_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(expiresAt - Date.now(), 0) + 1000));
    assert.equal(editor.seen.closed, false, 'closed at the old expiry of a session that was extended');
    editor.type('still here');
    await editor.allSynced();
  });

  test('a token whose session ended before the socket opened is refused on connect', async () => {
    const user = await member();
    const token = await collabToken(user.client, user.pages[1].id);
    assert.equal((await user.client.post('/auth/logout')).status, 204);
    await assert.rejects(ProtocolClient.connect(cast.wsUrl, user.pages[1].id, token), /refused: session-ended/);
  });
});
