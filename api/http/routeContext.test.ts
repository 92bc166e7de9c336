/**
 * The handler context typed by the access rule, and authentication chosen per router.
 * Types: `ActorFor` is `Actor` exactly for the rules `ruleRequiresActor` enforces (checked
 * by the compiler here, `@ts-expect-error` lines fail `tsc` when a type loosens). Run time:
 * probe routes behind each kind of rule, called anonymously, signed in by cookie and by a
 * bearer token on a second router, show what each handler really gets.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { sessionCookieAuthentication, type Actor, type Authenticator } from '../auth/authenticateRequest.ts';
import { createSession, validateSessionToken } from '../auth/sessions.ts';
import { User } from '../models/index.ts';
import { seedGrant, seedLabel, seedPage, seedSharedPond } from '../testing/accessFixtures.ts';
import { TestClient } from '../testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { createErrorHandler } from './errorHandler.ts';
import { defineRoute, registerRoutes, ruleRequiresActor, type AccessRule, type ActorFor, type AnyRoute, type AuthorizedResource, type ResourceFor } from './routeTable.ts';

const SIGNED_IN_RULES = [
  { kind: 'session' },
  { kind: 'siteAdmin' },
  { kind: 'setupAdmin' },
  { kind: 'pond', capability: 'visible', session: true },
  { kind: 'pond', capability: 'write' },
  { kind: 'pond', capability: 'admin' },
  { kind: 'page', capability: 'read', session: true },
  { kind: 'page', capability: 'write', allowTrashed: true },
  { kind: 'label', capability: 'write' },
  { kind: 'label', capability: 'read', session: true },
] as const satisfies readonly AccessRule[];

const MAYBE_ANONYMOUS_RULES = [
  { kind: 'public' },
  { kind: 'pond', capability: 'visible' },
  { kind: 'pond', capability: 'read' },
  { kind: 'pond', capability: 'read', session: false },
  { kind: 'page', capability: 'read' },
  { kind: 'label', capability: 'visible' },
] as const satisfies readonly AccessRule[];

// Compile-time half: each signed-in rule yields `Actor`, each other rule admits null.
type AllTrue<T extends readonly boolean[]> = T[number] extends true ? true : false;
type ActorIsNeverNull<Rules extends readonly unknown[]> = { [K in keyof Rules]: null extends ActorFor<Rules[K]> ? false : true };
type ActorMayBeNull<Rules extends readonly unknown[]> = { [K in keyof Rules]: null extends ActorFor<Rules[K]> ? true : false };
const signedInRulesHaveActors: AllTrue<ActorIsNeverNull<typeof SIGNED_IN_RULES>> = true;
const otherRulesMayBeAnonymous: AllTrue<ActorMayBeNull<typeof MAYBE_ANONYMOUS_RULES>> = true;

function typeLevelChecks(anyResource: AuthorizedResource) {
  // @ts-expect-error a session route always has a caller
  const sessionActor: ActorFor<{ kind: 'session' }> = null;
  // @ts-expect-error administering a pond needs a caller
  const pondAdmin: ActorFor<{ kind: 'pond'; capability: 'admin' }> = null;
  // A pond rule without `session` may be passed anonymously.
  const pondReader: ActorFor<{ kind: 'pond'; capability: 'visible' }> = null;
  // @ts-expect-error a page rule loads a page, not a pond
  const pagePond: ResourceFor<{ kind: 'page'; capability: 'read' }>['pond'] = anyResource.pond;
  // @ts-expect-error a session rule loads no resource
  const sessionResource: ResourceFor<{ kind: 'session' }>['access'] = anyResource.access;
  return [sessionActor, pondAdmin, pondReader, pagePond, sessionResource];
}

test('ruleRequiresActor agrees with ActorFor for every kind of rule', () => {
  assert.equal(signedInRulesHaveActors && otherRulesMayBeAnonymous, true);
  assert.equal(typeof typeLevelChecks, 'function');
  for (const rule of SIGNED_IN_RULES) assert.equal(ruleRequiresActor(rule), true, JSON.stringify(rule));
  for (const rule of MAYBE_ANONYMOUS_RULES) assert.equal(ruleRequiresActor(rule), false, JSON.stringify(rule));
});

/** Counts the calls that reached a handler. */
let handled = 0;

/** What a probe handler saw, plus what it read from its typed context. */
function reply(actor: Actor | null, resource: AuthorizedResource, read: Record<string, unknown> = {}) {
  handled += 1;
  const body = {
    actorId: actor?.user.id ?? null,
    resource: Object.keys(resource).sort(),
    pondId: resource.pond?.id ?? resource.access?.data.pondId ?? null,
    pageId: resource.page?.id ?? null,
    labelId: resource.label?.id ?? null,
    ...read,
  };
  return { body };
}
const probe = { setupExempt: true } as const;

// Every handler reads `actor.user` / `resource.<thing>.id` without `!`: the compiler accepts it only because the rule types them.
const probeRoutes: AnyRoute[] = [
  defineRoute({ ...probe, method: 'get', path: '/public', access: { kind: 'public' }, handler: async ({ actor, resource }) => reply(actor, resource) }),
  defineRoute({ ...probe, method: 'get', path: '/session', access: { kind: 'session' }, handler: async ({ actor, resource }) => reply(actor, resource, { username: actor.user.username }) }),
  defineRoute({
    ...probe,
    method: 'get',
    path: '/ponds/:id',
    access: { kind: 'pond', capability: 'visible' },
    handler: async ({ actor, resource }) => reply(actor, resource, { slug: resource.pond.slug }),
  }),
  defineRoute({
    ...probe,
    method: 'get',
    path: '/ponds/:id/people',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ actor, resource }) => reply(actor, resource, { username: actor.user.username, pond: resource.pond.id }),
  }),
  defineRoute({
    ...probe,
    method: 'post',
    path: '/ponds/:id/admin',
    access: { kind: 'pond', capability: 'admin' },
    handler: async ({ actor, resource }) => reply(actor, resource, { username: actor.user.username, canAdmin: resource.access.pond('admin').allowed }),
  }),
  defineRoute({
    ...probe,
    method: 'get',
    path: '/pages/:id',
    access: { kind: 'page', capability: 'read' },
    handler: async ({ actor, resource }) => reply(actor, resource, { title: resource.page.title }),
  }),
  defineRoute({
    ...probe,
    method: 'post',
    path: '/pages/:id/write',
    access: { kind: 'page', capability: 'write' },
    handler: async ({ actor, resource }) => reply(actor, resource, { username: actor.user.username, title: resource.page.title }),
  }),
  defineRoute({
    ...probe,
    method: 'post',
    path: '/labels/:id/write',
    access: { kind: 'label', capability: 'write' },
    handler: async ({ actor, resource }) => reply(actor, resource, { username: actor.user.username, name: resource.label.name }),
  }),
];

/** A second kind of credential: the session token sent as `Authorization: Bearer …` (what a token router would plug in). */
function bearerAuthentication(ttlDays: number): Authenticator {
  return {
    ambientCredentials: false,
    async authenticate(req) {
      const match = /^Bearer ([\w.-]+)$/.exec(req.headers.authorization ?? '');
      if (!match?.[1]) return null;
      const validated = await validateSessionToken(match[1], { ttlDays });
      return validated ? { user: validated.user, session: validated.session, token: null } : null;
    },
  };
}

describe('route context and per-router authentication', () => {
  let instance: TestInstance;
  let server: Server;
  let baseUrl: string;
  let owner: User;
  let ownerToken: string;
  let strangerToken: string;
  const ids = { pond: '', page: '', label: '' };

  before(async () => {
    instance = await startTestInstance();
    owner = await User.create({ username: 'probeowner', email: 'probeowner@example.org', displayName: 'Owner', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
    const stranger = await User.create({ username: 'probestranger', email: 'probestranger@example.org', displayName: 'Stranger', locale: null, status: 'ACTIVE', passwordHash: null, emailVerifiedAt: new Date() });
    const policy = { ttlDays: instance.services.config.sessionTtlDays };
    ownerToken = (await createSession(owner.id, { ip: null, userAgent: null, policy })).token;
    strangerToken = (await createSession(stranger.id, { ip: null, userAgent: null, policy })).token;
    const pond = await seedSharedPond(owner.id);
    // Anyone may read the pond: what a rule without `session` lets through shows.
    await seedGrant(pond.id, { subject: { type: 'public' }, role: 'reader' });
    ids.pond = pond.id;
    ids.page = (await seedPage(pond.id, 'Probe page')).id;
    ids.label = (await seedLabel(pond.id, 'probe')).id;

    const app = express();
    const cookieRouter = express.Router();
    registerRoutes(cookieRouter, probeRoutes, instance.services, { authenticate: sessionCookieAuthentication });
    const bearerRouter = express.Router();
    registerRoutes(bearerRouter, probeRoutes, instance.services, { authenticate: bearerAuthentication(policy.ttlDays) });
    app.use('/api/cookie', cookieRouter);
    app.use('/api/bearer', bearerRouter);
    app.use(createErrorHandler(instance.services.logger));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await instance.close();
  });

  /** A client on the cookie router; writes carry the instance's own origin, as the browser would. */
  function cookieClient(token: string | null) {
    const client = new TestClient(baseUrl);
    if (token) client.cookies.set('dt_session', token);
    return {
      get: (path: string) => client.get(`/api/cookie${path}`),
      post: (path: string, origin = instance.baseUrl) => client.request('POST', `/api/cookie${path}`, { origin }),
    };
  }

  function bearerClient(token: string | null) {
    const client = new TestClient(baseUrl);
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return {
      client,
      get: (path: string) => client.get(`/api/bearer${path}`, { headers }),
      post: (path: string, origin: string | null = null) => client.request('POST', `/api/bearer${path}`, { headers, origin }),
    };
  }

  test('anonymous callers reach only the handlers whose rule admits them, with actor null', async () => {
    const anonymous = cookieClient(null);
    const before = handled;
    assert.deepEqual((await anonymous.get('/public')).body, { actorId: null, resource: [], pondId: null, pageId: null, labelId: null });
    const pond = await anonymous.get(`/ponds/${ids.pond}`);
    assert.equal(pond.status, 200, pond.text);
    assert.deepEqual(pond.body.resource, ['access', 'pond']);
    assert.equal(pond.body.actorId, null);
    const page = await anonymous.get(`/pages/${ids.page}`);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual([page.body.actorId, page.body.resource, page.body.pageId, page.body.title], [null, ['access', 'page'], ids.page, 'Probe page']);
    assert.equal(handled - before, 3);
    for (const [method, path] of [
      ['get', '/session'],
      ['get', `/ponds/${ids.pond}/people`],
      ['post', `/ponds/${ids.pond}/admin`],
      ['post', `/pages/${ids.page}/write`],
      ['post', `/labels/${ids.label}/write`],
    ] as const) {
      const response = await anonymous[method](path);
      assert.equal(response.status, 401, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.error.code, 'unauthenticated');
    }
    assert.equal(handled - before, 3, 'no handler needing a caller ran without one');
  });

  test('a signed-in caller reaches every handler with the actor and exactly the resource its rule loaded', async () => {
    const signedIn = cookieClient(ownerToken);
    const expectations = [
      ['get', '/session', [], null],
      ['get', `/ponds/${ids.pond}`, ['access', 'pond'], 'pond'],
      ['get', `/ponds/${ids.pond}/people`, ['access', 'pond'], 'pond'],
      ['post', `/ponds/${ids.pond}/admin`, ['access', 'pond'], 'pond'],
      ['get', `/pages/${ids.page}`, ['access', 'page'], 'page'],
      ['post', `/pages/${ids.page}/write`, ['access', 'page'], 'page'],
      ['post', `/labels/${ids.label}/write`, ['access', 'label'], 'label'],
    ] as const;
    for (const [method, path, resource, loaded] of expectations) {
      const response = await signedIn[method](path);
      assert.equal(response.status, 200, `${method} ${path}: ${response.text}`);
      assert.equal(response.body.actorId, owner.id, path);
      assert.deepEqual(response.body.resource, resource, path);
      if (loaded) {
        assert.equal(response.body.pondId, ids.pond, path);
        if (loaded !== 'pond') assert.equal(response.body[`${loaded}Id`], ids[loaded], path);
      }
    }
  });

  test('a signed-in caller without the capability never reaches the handler', async () => {
    const stranger = cookieClient(strangerToken);
    const before = handled;
    assert.equal((await stranger.post(`/ponds/${ids.pond}/admin`)).status, 403);
    assert.equal((await stranger.post(`/pages/${ids.page}/write`)).status, 403);
    assert.equal((await stranger.post(`/labels/${ids.label}/write`)).status, 403);
    assert.equal(handled, before);
  });

  test('a bearer router authenticates by its own credential and never takes the cookie', async () => {
    const bearer = bearerClient(ownerToken);
    const session = await bearer.get('/session');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.actorId, owner.id);
    // The same session token as a cookie means nothing to the bearer router…
    const cookieOnly = bearerClient(null);
    cookieOnly.client.cookies.set('dt_session', ownerToken);
    assert.equal((await cookieOnly.get('/session')).status, 401);
    // …and the bearer header means nothing to the cookie router.
    const cookieRouterWithBearer = new TestClient(baseUrl);
    assert.equal((await cookieRouterWithBearer.get('/api/cookie/session', { headers: { authorization: `Bearer ${ownerToken}` } })).status, 401);
  });

  test('only the cookie router runs the CSRF origin check', async () => {
    const foreign = 'https://evil.example';
    const viaCookie = await cookieClient(ownerToken).post(`/pages/${ids.page}/write`, foreign);
    assert.equal(viaCookie.status, 403, viaCookie.text);
    assert.equal(viaCookie.body.error.code, 'csrf_failed');
    // A bearer token is never sent by the browser on its own: a foreign or missing Origin changes nothing.
    const bearer = bearerClient(ownerToken);
    for (const origin of [foreign, null]) {
      const response = await bearer.post(`/pages/${ids.page}/write`, origin);
      assert.equal(response.status, 200, `${origin}: ${response.text}`);
      assert.equal(response.body.actorId, owner.id);
    }
  });
});
