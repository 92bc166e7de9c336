/**
 * The unsubscribe link of digest mails, as a mail program and a browser use it: the link from a
 * real digest opens a confirmation page without a session, its one button turns the digest off,
 * the RFC 8058 one-click POST does the same from anywhere, and no answer ever sets a cookie.
 * Forged, altered, foreign-purpose and missing tokens are refused, as a page for browsers and
 * as the error envelope for other clients. The page's inline style is allowed by its CSP hash.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signUnsubscribeToken, signUserLinkToken, verifyUnsubscribeToken, type UserLinkPurpose } from '../auth/unsubscribeTokens.ts';
import { signCollabToken } from '../collab/collabToken.ts';
import { createLogger } from '../logger.ts';
import { Mailer } from '../mail/mailer.ts';
import { User } from '../models/index.ts';
import { runNotificationDigest } from '../notifications/notificationDigest.ts';
import { seedGrant, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { capturingLogger, saveSmtpRelay } from '../testing/mailRelay.ts';
import { waitFor } from '../testing/polling.ts';
import { mailParts, startSmtpTestServer, type SmtpTestServer } from '../testing/smtpTestServer.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('unsubscribe link', () => {
  let instance: TestInstance;
  let smtp: SmtpTestServer;
  let secret: string;
  const log = capturingLogger('api');

  before(async () => {
    instance = await startTestInstance({ logger: log.logger });
    await completeSetup(instance);
    smtp = await startSmtpTestServer();
    await saveSmtpRelay(instance, smtp.port);
    secret = instance.services.config.sessionSecret;
  });
  after(async () => {
    await smtp.close();
    await instance.close();
  });

  const url = (path: string) => new URL(path, instance.baseUrl).toString();

  async function digestOf(userId: string): Promise<string> {
    return (await User.findByPk(userId, { rejectOnEmpty: true })).digestFrequency;
  }

  async function freshUser(locale?: 'de' | 'en') {
    await resetRateLimits(instance);
    return createVerifiedUser(instance, locale ? { locale } : {});
  }

  function assertNoCookie(response: Response, what: string): void {
    assert.deepEqual(response.headers.getSetCookie(), [], `${what} sets no cookie`);
  }

  test('the link of a real digest shows a confirmation without a session; its button turns the digest off; no answer sets a cookie', async () => {
    const { user, client } = await freshUser();
    const owner = await User.findOne({ where: { username: 'admin' }, rejectOnEmpty: true });
    const pond = await seedSharedPond(owner.id, 'Unsubscribe pond');
    await seedGrant(pond.id, { subject: { type: 'user', id: user.id }, role: 'reader' });
    const page = await seedPage(pond.id, 'Watched page');
    await instance.services.sequelize.query(
      `INSERT INTO notifications (user_id, type, pond_id, page_id, payload, created_at) VALUES (:userId, 'page_changed', :pondId, :pageId, :payload, now() - interval '2 hours')`,
      { replacements: { userId: user.id, pondId: pond.id, pageId: page.id, payload: JSON.stringify({ pondName: pond.name, pondSlug: pond.slug, pageTitle: page.title, pageSlug: page.slug, actors: [], changeCount: 1, commentCount: 0 }) } },
    );
    const logger = createLogger('silent', 'worker');
    await runNotificationDigest({ sequelize: instance.services.sequelize, mailer: new Mailer({ fallback: null, logger }), baseUrl: instance.baseUrl, sessionSecret: secret, logger });
    const mail = smtp.messages.find((message) => message.to.includes(`${user.username}@example.org`));
    assert.ok(mail, 'the digest arrived');
    const link = mailParts(mail.raw).headers.get('list-unsubscribe')!.slice(1, -1);

    // A browser that is signed in elsewhere, or holds a stale cookie: neither read nor touched.
    const page1 = await fetch(link, { headers: { ...BROWSER, cookie: 'dt_session=not-a-session' } });
    assert.equal(page1.status, 200);
    assert.match(page1.headers.get('content-type') ?? '', /^text\/html/);
    assertNoCookie(page1, 'the confirmation page');
    assert.equal(page1.headers.get('cache-control'), 'no-store');
    assert.equal(page1.headers.get('referrer-policy'), 'no-referrer');
    const html = await page1.text();
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    const { displayName } = await User.findByPk(user.id, { rejectOnEmpty: true });
    assert.ok(html.includes(`${displayName} will no longer get e-mail summaries`), html);
    assert.equal(await digestOf(user.id), 'hourly', 'opening the link changes nothing');

    // The page's own style block is the one its policy allows, and nothing else may load or run.
    const csp = page1.headers.get('content-security-policy') ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    assert.ok(csp.includes(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`), csp);
    assert.ok(csp.includes("default-src 'none'") && csp.includes("form-action 'self'") && !csp.includes('unsafe-inline'), csp);
    assert.doesNotMatch(html, /<script/);

    // The button: the form's own fields, posted as a browser does under `Referrer-Policy: no-referrer` (Origin: null).
    const form = /<form method="post" action="([^"]+)"><input type="hidden" name="token" value="([^"]+)">/.exec(html);
    assert.ok(form, 'a form with one hidden field');
    const done = await fetch(url(form[1]!), { method: 'POST', headers: { ...BROWSER, origin: 'null', 'content-type': 'application/x-www-form-urlencoded', cookie: 'dt_session=not-a-session' }, body: new URLSearchParams({ token: form[2]! }) });
    assert.equal(done.status, 200);
    assertNoCookie(done, 'the done page');
    assert.match(await done.text(), /E-mail summaries stopped/);
    assert.equal(await digestOf(user.id), 'off');

    // Still signed in where they were: the session was never touched.
    const session = await client.get('/auth/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.user.id, user.id);
  });

  test('RFC 8058 one-click: a POST to the link itself, urlencoded or multipart, from any origin, answers 204', async () => {
    for (const encoding of ['urlencoded', 'multipart'] as const) {
      const { user } = await freshUser();
      const link = url(`/api/v1/unsubscribe?token=${encodeURIComponent(signUnsubscribeToken(secret, user.id))}`);
      const multipart = new FormData();
      multipart.append('List-Unsubscribe', 'One-Click');
      const body = encoding === 'urlencoded' ? new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) : multipart;
      const response = await fetch(link, { method: 'POST', headers: { origin: 'https://mail.example.net' }, body });
      assert.equal(response.status, 204, `${encoding}: ${await response.text()}`);
      assertNoCookie(response, 'one-click');
      assert.equal(await digestOf(user.id), 'off', encoding);
    }
  });

  test('a JSON client may post the token in a JSON body; a second unsubscribe changes nothing', async () => {
    const { user } = await freshUser();
    const token = signUnsubscribeToken(secret, user.id);
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(url('/api/v1/unsubscribe'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      assert.equal(response.status, 204);
      assertNoCookie(response, 'the JSON answer');
    }
    assert.equal(await digestOf(user.id), 'off');
  });

  test('the pages speak the account\'s language, else the browser\'s', async () => {
    const german = await freshUser('de');
    const english = await freshUser('en');
    const undecided = await freshUser();
    await User.update({ locale: null }, { where: { id: undecided.user.id } });
    const pageFor = async (userId: string, language: string) =>
      (await fetch(url(`/api/v1/unsubscribe?token=${encodeURIComponent(signUnsubscribeToken(secret, userId))}`), { headers: { ...BROWSER, 'accept-language': language } })).text();
    assert.match(await pageFor(german.user.id, 'en'), /<h1>E-Mail-Zusammenfassungen abbestellen\?<\/h1>/);
    assert.match(await pageFor(english.user.id, 'de'), /<h1>Stop e-mail summaries\?<\/h1>/);
    assert.match(await pageFor(undecided.user.id, 'de-DE,de;q=0.9'), /<html lang="de">/);
  });

  test('forged, altered, foreign-purpose and missing tokens are refused: a page for browsers, token_invalid for others; nothing changes', async () => {
    const { user } = await freshUser();
    const other = await freshUser();
    const valid = signUnsubscribeToken(secret, user.id);
    const mac = valid.split('.')[1]!;
    const refused: Record<string, string | undefined> = {
      missing: undefined,
      garbage: 'not-a-token',
      'signed with another secret': signUnsubscribeToken('another-instance-secret-0123456789abcdef', user.id),
      'another account with this signature': `${other.user.id}.${mac}`,
      'a signature cut short': valid.slice(0, -2),
      'a signature with a stray character': `${valid}!`,
      'a token of another purpose': signUserLinkToken(secret, 'account_delete' as UserLinkPurpose, user.id),
      'a collaboration token': signCollabToken(secret, { pageId: user.id, userId: user.id, origin: { kind: 'session', sessionId: user.id }, mode: 'ro' }).token,
    };
    for (const [what, token] of Object.entries(refused)) {
      assert.equal(verifyUnsubscribeToken(secret, token), null, what);
      const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
      const page = await fetch(url(`/api/v1/unsubscribe${query}`), { headers: BROWSER });
      assert.equal(page.status, 400, what);
      assert.match(await page.text(), /This link does not work/, what);
      assertNoCookie(page, what);
      const json = await fetch(url(`/api/v1/unsubscribe${query}`));
      assert.equal(json.status, 400, what);
      assert.equal((await json.json()).error.code, 'token_invalid', what);
      const post = await fetch(url('/api/v1/unsubscribe'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(token === undefined ? {} : { token }) });
      assert.equal(post.status, 400, what);
      assert.equal((await post.json()).error.code, 'token_invalid', what);
      const oneClick = await fetch(url(`/api/v1/unsubscribe${query}`), { method: 'POST', headers: BROWSER, body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) });
      assert.equal(oneClick.status, 400, what);
    }
    assert.equal(await digestOf(user.id), 'hourly');
    assert.equal(await digestOf(other.user.id), 'hourly');
    assert.equal(verifyUnsubscribeToken(secret, valid), user.id, 'the valid token still works');
  });

  test('the request log names the route, never the token', async () => {
    const { user } = await freshUser();
    const token = signUnsubscribeToken(secret, user.id);
    const linesBefore = log.lines.length;
    await fetch(url(`/api/v1/unsubscribe?token=${encodeURIComponent(token)}`), { headers: BROWSER });
    await fetch(url(`/api/v1/unsubscribe?token=${encodeURIComponent(token)}`), { method: 'POST' });
    await fetch(url(`/api/v1/unsubscribe?token=${encodeURIComponent(`${token}x`)}`));
    assert.equal(await digestOf(user.id), 'off');
    const lines = await waitFor(() => (log.lines.length - linesBefore >= 3 ? log.lines.slice(linesBefore).join('\n') : undefined), 5_000, 'the request log lines');
    assert.match(lines, /"path":"\/unsubscribe"/);
    assert.ok(!lines.includes(token.split('.')[1]!), 'no token in the log');
  });
});
