import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import express from 'express';
import { sessionCookieAuthentication } from '../auth/authenticateRequest.ts';
import { publicApiRoutes } from '../publicApi/publicApiRoutes.ts';
import { internalApiRoutes } from '../routes/index.ts';
import type { AppServices } from '../services.ts';
import { ACCESS_RULE_KINDS, registerRoutes, type AnyRoute } from './routeTable.ts';

test('every route in the internal and the public table declares a known access rule', () => {
  assert.ok(internalApiRoutes.length > 10);
  for (const route of [...internalApiRoutes, ...publicApiRoutes]) {
    const label = `${route.method.toUpperCase()} ${route.path}`;
    assert.ok(route.access, `${label} has no access rule`);
    assert.ok((ACCESS_RULE_KINDS as readonly string[]).includes(route.access.kind), `${label} has an unknown access rule`);
  }
});

test('no two routes of a table share a method and path', () => {
  for (const table of [internalApiRoutes, publicApiRoutes]) {
    const seen = new Set<string>();
    for (const route of table) {
      const key = `${route.method} ${route.path}`;
      assert.ok(!seen.has(key), `duplicate route ${key}`);
      seen.add(key);
    }
  }
});

test('public REST routes take a personal access token, reads with read scope and writes with write scope; only the OpenAPI document is open', () => {
  assert.ok(publicApiRoutes.length >= 7);
  for (const route of publicApiRoutes) {
    const label = `${route.method.toUpperCase()} ${route.path}`;
    if (route.access.kind === 'public') {
      assert.equal(route.path, '/openapi.json', `${label} must take a token`);
      continue;
    }
    assert.equal(route.access.kind, 'token', `${label} must use the token rule`);
    assert.equal(route.access.scope, route.method === 'get' ? 'read' : 'write', `${label} has the wrong scope`);
  }
  // The token rule exists only on the bearer router: no internal route takes a token.
  for (const route of internalApiRoutes) assert.notEqual(route.access.kind, 'token', `${route.method.toUpperCase()} ${route.path} is internal`);
});

test('registering a route without an access rule fails', () => {
  const withoutRule = { method: 'get', path: '/x', handler: async () => undefined } as unknown as AnyRoute;
  assert.throws(() => registerRoutes(express.Router(), [withoutRule], {} as AppServices, { authenticate: sessionCookieAuthentication }), /has no valid access rule/);
  const unknownRule = { ...withoutRule, access: { kind: 'whoever' } } as unknown as AnyRoute;
  assert.throws(() => registerRoutes(express.Router(), [unknownRule], {} as AppServices, { authenticate: sessionCookieAuthentication }), /has no valid access rule/);
});

test('only setup, session, health and legal routes are reachable while setup is pending', () => {
  const exempt = internalApiRoutes.filter((route) => route.setupExempt).map((route) => route.path);
  for (const path of exempt) {
    assert.match(path, /^\/(setup|auth\/|healthz|readyz|legal\/)/, `${path} must not bypass the setup gate`);
  }
  for (const path of ['/setup', '/setup/admin', '/auth/login', '/auth/session', '/readyz', '/healthz']) {
    assert.ok(exempt.includes(path), `${path} must be reachable during setup`);
  }
});

test('every route on a pond, page or label id is guarded by the policy for that resource', () => {
  const guardedBy: Record<string, string> = { ponds: 'pond', pages: 'page', labels: 'label' };
  for (const route of internalApiRoutes) {
    const match = /^\/(ponds|pages|labels)\/:id(\/|$)/.exec(route.path);
    if (!match) continue;
    assert.equal(route.access.kind, guardedBy[match[1]!], `${route.method.toUpperCase()} ${route.path} must use the ${guardedBy[match[1]!]} access rule`);
  }
});

test('no route parses a body itself: every body goes through the route\'s `body` schema', () => {
  const routesDir = new URL('../routes/', import.meta.url);
  const sources = readdirSync(routesDir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  assert.ok(sources.length > 10);
  for (const name of sources) {
    const source = readFileSync(new URL(name, routesDir), 'utf8');
    for (const pattern of [/\breq\.body\b/, /\.safeParse\(/, /\.parse\(/, /JSON\.parse\(/]) {
      assert.doesNotMatch(source, pattern, `api/routes/${name} parses a request body outside its schema`);
    }
  }
  const settingsPatch = internalApiRoutes.find((route) => route.method === 'patch' && route.path === '/admin/settings');
  assert.ok(settingsPatch?.body, 'PATCH /admin/settings declares its body schema');
});
