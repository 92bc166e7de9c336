/**
 * The flow cookie on its own: signed and checked (a changed byte, another secret, a stale or
 * future issue time, garbage all read as no flow), `next` kept to a same-origin path, and the
 * cookie's attributes (HttpOnly, SameSite=Lax, 10 minutes, only the OIDC routes, Secure as asked).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Response } from 'express';
import { clearFlowCookie, FLOW_COOKIE, FLOW_COOKIE_PATH, safeNextPath, setFlowCookie, signFlow, verifyFlow, type FlowState } from './flowCookie.ts';

const SECRET = 'a-session-secret-that-is-long-enough-for-tests';
const flow: FlowState = { state: 's', nonce: 'n', codeVerifier: 'v', next: '/ponds/x', issuedAt: Date.now(), purpose: { kind: 'link', userId: 'u-1' } };

test('a signed flow reads back whole; a changed payload or signature, another secret and garbage read as none', () => {
  const value = signFlow(SECRET, flow);
  assert.deepEqual(verifyFlow(SECRET, value), flow);
  const [payload, mac] = value.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify({ ...flow, purpose: { kind: 'link', userId: 'u-2' } })).toString('base64url');
  assert.equal(verifyFlow(SECRET, `${forged}.${mac}`), null);
  assert.equal(verifyFlow(SECRET, `${payload}.${mac.slice(0, -2)}AA`), null);
  assert.equal(verifyFlow('another-secret-that-is-long-enough-for-tests', value), null);
  for (const garbage of [undefined, '', 'x', 'a.b.c', `${payload}.`, '.'.repeat(5000)]) assert.equal(verifyFlow(SECRET, garbage), null, String(garbage));
});

test('the flow lives 10 minutes; one issued in the future is refused too', () => {
  const now = Date.now();
  assert.ok(verifyFlow(SECRET, signFlow(SECRET, { ...flow, issuedAt: now - 9 * 60_000 }), now));
  assert.equal(verifyFlow(SECRET, signFlow(SECRET, { ...flow, issuedAt: now - 10 * 60_000 - 1 }), now), null);
  assert.equal(verifyFlow(SECRET, signFlow(SECRET, { ...flow, issuedAt: now + 5 * 60_000 }), now), null);
});

test('next: a path on our origin, anything else is /', () => {
  for (const kept of ['/', '/ponds/a', '/ponds/a?x=1#y', '/settings']) assert.equal(safeNextPath(kept), kept);
  for (const refused of ['', 'ponds', 'https://evil.example/', '//evil.example', '/\\evil.example', '\\\\evil', '/a\nb', 42, null, undefined, ['/a'], `/${'a'.repeat(3000)}`]) {
    assert.equal(safeNextPath(refused), '/', JSON.stringify(refused));
  }
});

test('the cookie: HttpOnly, SameSite=Lax, 10 minutes, sent only to the OIDC routes, Secure when asked; cleared the same way', () => {
  const calls: { name: string; value?: string; options: Record<string, unknown> }[] = [];
  const res = {
    cookie: (name: string, value: string, options: Record<string, unknown>) => calls.push({ name, value, options }),
    clearCookie: (name: string, options: Record<string, unknown>) => calls.push({ name, options }),
  } as unknown as Response;
  setFlowCookie(res, 'v', true);
  setFlowCookie(res, 'v', false);
  clearFlowCookie(res, true);
  assert.deepEqual(calls[0], { name: FLOW_COOKIE, value: 'v', options: { httpOnly: true, sameSite: 'lax', secure: true, path: FLOW_COOKIE_PATH, maxAge: 600_000 } });
  assert.equal(calls[1]!.options.secure, false);
  assert.deepEqual(calls[2], { name: FLOW_COOKIE, options: { httpOnly: true, sameSite: 'lax', secure: true, path: '/api/v1/auth/oidc' } });
});
