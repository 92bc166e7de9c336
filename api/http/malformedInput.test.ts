/**
 * The malformed-input sweep: every route the app serves (walked from the router stack, so
 * routes added later are swept too) gets malformed path parameters, queries and bodies —
 * wrong types, NUL, lone surrogates, dates and numbers outside what the database holds,
 * cursors holding them, wrong content types, bodies over 1 MB and deeply nested ones. It
 * fails on any 5xx, on any internal error text (stack frames, SQL errors) in an answer and
 * on an error answer that is not our error envelope.
 *
 * Two phases: while setup is pending (the routes open then, as the setup admin), then on a
 * set-up instance as a site admin and anonymously, with a pond, pages, a label, a grant, a
 * member and a version to point path parameters at. Writes that succeed may destroy those,
 * so after each one they are checked and rebuilt where needed. A hand-written sample body
 * that validation refuses fails the sweep too: its one-field variants would test nothing.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { QueryTypes } from 'sequelize';
import { createApp } from '../app.ts';
import { createSession, SESSION_COOKIE } from '../auth/sessions.ts';
import { PUBLIC_API_PREFIX } from '../publicApi/publicApiRouter.ts';
import { publicApiRoutes } from '../publicApi/publicApiRoutes.ts';
import { internalApiRoutes } from '../routes/index.ts';
import { createVerifiedUser, resetRateLimits } from '../testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import {
  answerProblem,
  discoverRouteDefinitions,
  matchDefinitions,
  sampleBody,
  sampleRequest,
  servedRoutes,
  sweepRequests,
  type SweepFixtures,
  type SweepRequest,
  type SweptRoute,
} from './malformedInputSweep.ts';

/** Bodies each route takes, so one malformed field at a time gets past the others. Routes missing here get a generated sample. */
const SAMPLE_BODIES: Record<string, (fixtures: SweepFixtures) => unknown> = {
  'POST /setup/admin': () => ({ username: 'sweepadmin', email: 'sweepadmin@example.org', password: 'a long enough password', displayName: 'Sweep Admin' }),
  'POST /setup/instance': (fixtures) => ({ name: 'Sweepteich', baseUrl: fixtures.baseUrl, defaultLocale: 'en' }),
  // Port 9 refuses at once: the step fails fast with its transport error.
  'POST /setup/smtp': () => ({ host: '127.0.0.1', port: 9, secure: false, username: 'mailer', password: 'secret', from: 'Sweep <sweep@example.org>', testRecipient: 'to@example.org' }),
  'POST /setup/registration': () => ({ mode: 'open' }),
  'POST /auth/login': () => ({ login: 'nobody-here', password: 'a wrong password' }),
  'POST /auth/signup': () => ({ username: 'sweepsignup', email: 'sweepsignup@example.org', password: 'a long enough password', displayName: 'Sweep', locale: 'en' }),
  'POST /auth/verify-email': () => ({ token: 'x'.repeat(40) }),
  'POST /auth/resend-verification': () => ({ email: 'nobody@example.org' }),
  'POST /auth/forgot-password': () => ({ email: 'nobody@example.org' }),
  'POST /auth/reset-password': () => ({ token: 'x'.repeat(40), password: 'a long enough password' }),
  'PATCH /users/me': () => ({ displayName: 'Sweep Admin', locale: 'en', digestFrequency: 'daily', autoWatchOwnPages: true }),
  // A wrong current password: the sweep's sessions must outlive it.
  'POST /users/me/password': () => ({ currentPassword: 'not the password', newPassword: 'a long enough password' }),
  'POST /ponds': () => ({ name: 'Sweep pond', slug: 'sweep-pond' }),
  'PATCH /ponds/:id': () => ({ name: 'Sweep pond', fonts: { body: null }, settings: { sidebarView: 'tree', commentPolicy: 'readers' } }),
  'POST /ponds/:id/members': (fixtures) => ({ user: fixtures.memberLogin, role: 'reader' }),
  'PATCH /ponds/:id/members/:userId': () => ({ role: 'editor' }),
  'POST /ponds/:id/grants': (fixtures) => ({ subject: { type: 'user', id: fixtures.memberId }, role: 'reader', scope: { type: 'label', id: fixtures.labelId }, effect: 'deny' }),
  'POST /ponds/:id/labels': (fixtures) => ({ name: 'Sweep child', color: '#336699', parentId: fixtures.labelId }),
  'PATCH /labels/:id': () => ({ name: 'Sweep label', color: '#336699', parentId: null }),
  'PUT /pages/:id/labels': (fixtures) => ({ labelIds: [fixtures.labelId] }),
  'POST /ponds/:id/pages': (fixtures) => ({ title: 'Sweep child', slug: 'sweep-child', parentId: fixtures.pageId, markdown: '# Hi\n\n[[Sweep target]]' }),
  'PATCH /pages/:id': () => ({ title: 'Sweep page', slug: 'sweep-page' }),
  'PATCH /pages/:id/position': () => ({ parentId: null, index: 0 }),
  'POST /pages/:id/versions': () => ({ label: 'Sweep version' }),
  'PATCH /admin/settings': () => ({ 'instance.name': 'Sweepteich', 'home.content': '# Home', 'quota.storage_bytes': 1000000 }),
};

const SAMPLE_QUERIES: Record<string, Record<string, string>> = {
  'GET /search': { q: 'sweep' },
  'GET /ponds/:id/effective-permissions': { subjectType: 'public' },
};

const PLACEHOLDER_ID = '00000000-0000-4000-8000-00000000abcd';

interface Caller {
  name: string;
  cookie: string | null;
}

interface Answer {
  status: number;
  text: string;
  setCookie: string[];
}

interface Problem {
  route: string;
  caller: string;
  label: string;
  status: number;
  excerpt: string;
}

describe('malformed input', () => {
  let instance: TestInstance;
  let routes: SweptRoute[];
  let sent = 0;
  let adminId = '';

  before(async () => {
    instance = await startTestInstance({ env: { LOGIN_RATE_LIMIT_PER_IP: '1000000', LOGIN_RATE_LIMIT_PER_ACCOUNT: '1000000' } });
    const app = await createApp(instance.services, { site: false });
    routes = matchDefinitions(servedRoutes(app), await discoverRouteDefinitions(path.resolve(import.meta.dirname, '..')), [
      { prefix: '/api/v1', routes: internalApiRoutes },
      { prefix: PUBLIC_API_PREFIX, routes: publicApiRoutes },
    ]);
  });
  after(() => instance.close());

  async function send(request: Pick<SweepRequest, 'method' | 'url' | 'headers' | 'body'>, caller: Caller): Promise<Answer> {
    const headers: Record<string, string> = { ...request.headers, origin: instance.baseUrl };
    if (caller.cookie) headers.cookie = caller.cookie;
    try {
      const response = await fetch(instance.baseUrl + request.url, { method: request.method, headers, body: request.body, redirect: 'manual', signal: AbortSignal.timeout(20_000) });
      return { status: response.status, text: await response.text(), setCookie: response.headers.getSetCookie() };
    } catch (error) {
      return { status: 0, text: String((error as { cause?: unknown }).cause ?? error), setCookie: [] };
    }
  }

  async function call(caller: Caller, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
    const answer = await send({ method, url: `/api/v1${url}`, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)) }, caller);
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = null;
    }
    return { status: answer.status, body: parsed };
  }

  const keyOf = (route: SweptRoute) => (route.definition ? `${route.definition.method.toUpperCase()} ${route.definition.path}` : '');

  async function setupAdminId(): Promise<string> {
    const [row] = await instance.services.sequelize.query<{ value: string }>(`SELECT value #>> '{}' AS value FROM settings WHERE key = 'setup.adminId'`, { type: QueryTypes.SELECT });
    assert.ok(row, 'a setup admin exists');
    return row.value;
  }

  async function sessionCookieFor(userId: string): Promise<string> {
    const { token } = await createSession(userId, { ip: null, userAgent: 'malformed-input sweep', policy: { ttlDays: 1 } });
    return `${SESSION_COOKIE}=${token}`;
  }

  async function ensureSession(caller: Caller, userId: string): Promise<void> {
    const session = await call(caller, 'GET', '/auth/session');
    if (session.body?.user?.id !== userId) caller.cookie = await sessionCookieFor(userId);
  }

  async function sendChecked(route: SweptRoute, request: SweepRequest, caller: Caller, problems: Problem[]): Promise<Answer> {
    let answer = await send(request, caller);
    sent += 1;
    if (answer.status === 429) {
      await resetRateLimits(instance);
      answer = await send(request, caller);
      sent += 1;
    }
    const problem = answerProblem(answer);
    if (problem) problems.push({ route: `${route.method.toUpperCase()} ${route.path}`, caller: caller.name, label: request.label, status: answer.status, excerpt: `${problem}: ${answer.text.slice(0, 300)}` });
    return answer;
  }

  function requestsFor(route: SweptRoute, fixtures: SweepFixtures): SweepRequest[] {
    return sweepRequests(route, fixtures, { sampleBody: sampleBody(route, fixtures, SAMPLE_BODIES), sampleQuery: SAMPLE_QUERIES[keyOf(route)] ?? {} });
  }

  /**
   * Sends every request of `route` as `caller`. Reads go four at a time; writes one by one, and
   * after each that succeeded `afterWrite` checks the fixtures (rebuilding what it destroyed).
   */
  async function sweep(route: SweptRoute, caller: Caller, fixtures: SweepFixtures, problems: Problem[], afterWrite: () => Promise<SweepFixtures>): Promise<void> {
    let requests = requestsFor(route, fixtures);
    if (route.method === 'get') {
      for (let index = 0; index < requests.length; index += 4) await Promise.all(requests.slice(index, index + 4).map((request) => sendChecked(route, request, caller, problems)));
      return;
    }
    for (let index = 0; index < requests.length; index += 1) {
      const answer = await sendChecked(route, requests[index]!, caller, problems);
      if (answer.status >= 200 && answer.status < 300) {
        const current = await afterWrite();
        if (current !== fixtures) requests = requestsFor(route, (fixtures = current));
      }
    }
  }

  /** Routes whose malformed requests may still succeed and change state (no input to refuse, deletions) go last. */
  function inSweepOrder(list: SweptRoute[]): SweptRoute[] {
    const rank = (route: SweptRoute) => {
      const definition = route.definition;
      const takesInput = Boolean(definition?.params || definition?.query || definition?.body);
      return (takesInput ? 0 : 2) + (route.method === 'delete' ? 1 : 0);
    };
    return [...list].sort((a, b) => rank(a) - rank(b));
  }

  async function sampleAnswer(route: SweptRoute, fixtures: SweepFixtures, caller: Caller): Promise<Answer> {
    return send(sampleRequest(route, fixtures, { sampleBody: sampleBody(route, fixtures, SAMPLE_BODIES), sampleQuery: SAMPLE_QUERIES[keyOf(route)] ?? {} }), caller);
  }

  /** A route that is closed in this phase (setup pending, or a setup step once it is done) answers every request the same. */
  const closed = (answer: Answer) => answer.status === 410 || answer.text.includes('"setup_required"');

  test('the sweep finds every route of the internal API and of the public REST API, each under its own prefix', () => {
    for (const [prefix, table] of [['/api/v1', internalApiRoutes], [PUBLIC_API_PREFIX, publicApiRoutes]] as const) {
      for (const route of table) {
        const found = routes.find((swept) => swept.definition === route);
        assert.ok(found, `${route.method.toUpperCase()} ${prefix}${route.path} is not swept`);
        assert.equal(found.path, prefix + route.path);
      }
    }
  });

  test('while setup is pending, no route open then answers 5xx or internal text', async () => {
    const problems: Problem[] = [];
    const placeholders: SweepFixtures = {
      pondId: PLACEHOLDER_ID,
      pageId: PLACEHOLDER_ID,
      labelId: PLACEHOLDER_ID,
      versionId: PLACEHOLDER_ID,
      grantId: PLACEHOLDER_ID,
      memberId: PLACEHOLDER_ID,
      memberLogin: 'nobody',
      baseUrl: instance.baseUrl,
    };
    const created = await send({ method: 'POST', url: '/api/v1/setup/admin', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(SAMPLE_BODIES['POST /setup/admin']!(placeholders))) }, { name: 'anonymous', cookie: null });
    assert.equal(created.status, 201, created.text);
    adminId = await setupAdminId();
    const setupAdmin: Caller = { name: 'setup admin', cookie: await sessionCookieFor(adminId) };
    // The routes a table declares reachable while setup is pending (probing would run the setup steps).
    const open = routes.filter((route) => route.definition?.setupExempt);
    assert.ok(open.some((route) => route.path.endsWith('/setup/instance')), 'the setup steps are open while setup is pending');
    for (const route of open.filter((candidate) => SAMPLE_BODIES[keyOf(candidate)])) {
      const sample = await sampleAnswer(route, placeholders, setupAdmin);
      if (sample.text.includes('"validation_failed"')) problems.push({ route: keyOf(route), caller: setupAdmin.name, label: 'the sample body (update SAMPLE_BODIES)', status: sample.status, excerpt: sample.text.slice(0, 300) });
      // A sign-up or sign-in replaces the caller's session.
      await ensureSession(setupAdmin, adminId);
    }
    for (const route of inSweepOrder(open)) {
      await ensureSession(setupAdmin, adminId);
      await sweep(route, setupAdmin, placeholders, problems, async () => {
        await ensureSession(setupAdmin, adminId);
        return placeholders;
      });
    }

    await ensureSession(setupAdmin, adminId);
    await call(setupAdmin, 'POST', '/setup/instance', SAMPLE_BODIES['POST /setup/instance']!(placeholders));
    await call(setupAdmin, 'POST', '/setup/registration', { mode: 'open' });
    await call(setupAdmin, 'POST', '/setup/complete');
    const [completed] = await instance.services.sequelize.query(`SELECT 1 FROM settings WHERE key = 'setup.completedAt' AND value <> 'null'::jsonb`, { type: QueryTypes.SELECT });
    assert.ok(completed, 'setup completed');
    assert.deepEqual(problems, [], report(problems));
  });

  test('on a set-up instance, no route answers 5xx or internal text, to a site admin or anonymously', async () => {
    const problems: Problem[] = [];
    const admin: Caller = { name: 'site admin', cookie: await sessionCookieFor(adminId) };
    const anonymous: Caller = { name: 'anonymous', cookie: null };
    await resetRateLimits(instance);
    const member = await createVerifiedUser(instance);
    let counter = 0;

    const build = async (): Promise<SweepFixtures> => {
      counter += 1;
      await ensureSession(admin, adminId);
      const pond = await call(admin, 'POST', '/ponds', { name: `Sweep ${counter}` });
      assert.equal(pond.status, 201, JSON.stringify(pond.body));
      const pondId = pond.body.id as string;
      await call(admin, 'POST', `/ponds/${pondId}/grants`, { subject: { type: 'public' }, role: 'reader', scope: { type: 'pond' }, effect: 'allow' });
      await call(admin, 'POST', `/ponds/${pondId}/members`, { user: member.credentials.username, role: 'editor' });
      const label = await call(admin, 'POST', `/ponds/${pondId}/labels`, { name: 'Sweep label', color: '#336699' });
      await call(admin, 'POST', `/ponds/${pondId}/pages`, { title: 'Sweep target', markdown: 'Target of the sweep.' });
      const page = await call(admin, 'POST', `/ponds/${pondId}/pages`, { title: 'Sweep page', markdown: 'A sweep page linking [[Sweep target]] and [[Nowhere]].' });
      await call(admin, 'PUT', `/pages/${page.body.id}/labels`, { labelIds: [label.body.id] });
      const grant = await call(admin, 'POST', `/ponds/${pondId}/grants`, { subject: { type: 'user', id: member.user.id }, role: 'reader', scope: { type: 'label', id: label.body.id }, effect: 'allow' });
      const version = await call(admin, 'POST', `/pages/${page.body.id}/versions`, { label: 'Sweep version' });
      await call(admin, 'PUT', `/pages/${page.body.id}/favorite`);
      const fixtures = {
        pondId,
        pageId: page.body.id,
        labelId: label.body.id,
        versionId: version.body.id,
        grantId: grant.body.id,
        memberId: member.user.id,
        memberLogin: member.credentials.username,
        baseUrl: instance.baseUrl,
      };
      for (const [name, value] of Object.entries(fixtures)) assert.equal(typeof value, 'string', `fixture ${name}`);
      return fixtures;
    };

    /** The fixtures as they are, or new ones when a write destroyed one; the member enabled, the admin signed in. */
    const intact = async (fixtures: SweepFixtures): Promise<SweepFixtures> => {
      const sessionId = admin.cookie?.split('=')[1]?.split('.')[0] ?? '';
      const [state] = await instance.services.sequelize.query<{ whole: boolean; signed_in: boolean }>(
        `SELECT (SELECT trashed_at IS NULL FROM ponds WHERE id = :pondId)
                AND (SELECT trashed_at IS NULL FROM pages WHERE id = :pageId)
                AND EXISTS (SELECT 1 FROM labels WHERE id = :labelId)
                AND EXISTS (SELECT 1 FROM grants WHERE id = :grantId)
                AND EXISTS (SELECT 1 FROM page_versions WHERE id = :versionId) AS whole,
                EXISTS (SELECT 1 FROM sessions WHERE id = :sessionId AND expires_at > now()) AS signed_in`,
        { replacements: { ...fixtures, sessionId }, type: QueryTypes.SELECT },
      );
      await instance.services.sequelize.query(`UPDATE users SET status = 'ACTIVE' WHERE id = :memberId AND status <> 'ACTIVE'`, { replacements: { memberId: fixtures.memberId } });
      if (!state?.signed_in) admin.cookie = await sessionCookieFor(adminId);
      return state?.whole ? fixtures : build();
    };

    let fixtures = await build();
    for (const route of inSweepOrder(routes)) {
      // The sample itself may change state (a trash, a deletion): checked like any write.
      const sample = await sampleAnswer(route, fixtures, admin);
      fixtures = await intact(fixtures);
      if (closed(sample)) continue;
      if (SAMPLE_BODIES[keyOf(route)] && sample.text.includes('"validation_failed"')) {
        problems.push({ route: keyOf(route), caller: admin.name, label: 'the sample body (update SAMPLE_BODIES)', status: sample.status, excerpt: sample.text.slice(0, 300) });
      }
      for (const caller of [admin, anonymous]) {
        // Anonymous callers stopped by the access rule never reach what the sweep tests.
        if (caller === anonymous && [401, 403, 404].includes((await sampleAnswer(route, fixtures, anonymous)).status)) continue;
        await sweep(route, caller, fixtures, problems, async () => (fixtures = await intact(fixtures)));
      }
      fixtures = await intact(fixtures);
    }
    assert.deepEqual(problems, [], report(problems));
  });

  function report(problems: Problem[]): string {
    const byCause = new Map<string, Problem[]>();
    for (const problem of problems) {
      const key = `${problem.route} ${problem.label.split(' = ')[0]}`;
      byCause.set(key, [...(byCause.get(key) ?? []), problem]);
    }
    const lines = [...byCause.entries()].map(([key, list]) => `${list.length}× ${key} (${list[0]!.caller}, ${list[0]!.label}): ${list[0]!.excerpt.slice(0, 200)}`);
    return `${sent} requests sent, ${problems.length} problems:\n${lines.join('\n')}`;
  }

  after(() => {
    process.stdout.write(`# malformed-input sweep: ${routes?.length ?? 0} routes, ${sent} requests\n`);
  });
});
