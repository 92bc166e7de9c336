/**
 * The OpenID Connect flow cookie `dt_oidc` (ARCHITECTURE, "Single sign-on"): what `start`
 * chose and `callback` must check — state, nonce, the PKCE verifier, where to land, when it
 * was issued and what the flow is for (a login, or linking an identity to a signed-in user).
 * Not stored anywhere: `<base64url JSON>.<base64url HMAC-SHA256>`, keyed by the session secret
 * under a purpose label of its own (as api/collab/collabToken.ts), HttpOnly, SameSite=Lax (the
 * provider's redirect back is a top-level GET), 10 minutes, sent only to the OIDC routes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';

export const FLOW_COOKIE = 'dt_oidc';
export const FLOW_COOKIE_PATH = '/api/v1/auth/oidc';
export const FLOW_TTL_MS = 10 * 60 * 1000;

export type FlowPurpose = { kind: 'login' } | { kind: 'link'; userId: string };

export interface FlowState {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A same-origin path (see `safeNextPath`). */
  next: string;
  /** Milliseconds since the epoch. */
  issuedAt: number;
  purpose: FlowPurpose;
}

function signingKey(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('dorfteich oidc flow v1').digest();
}

function mac(sessionSecret: string, payload: string): Buffer {
  return createHmac('sha256', signingKey(sessionSecret)).update(payload).digest();
}

export function signFlow(sessionSecret: string, flow: FlowState): string {
  const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
  return `${payload}.${mac(sessionSecret, payload).toString('base64url')}`;
}

/** The flow of an intact cookie younger than 10 minutes; null for a missing, forged or stale one. */
export function verifyFlow(sessionSecret: string, value: string | undefined, now: number = Date.now()): FlowState | null {
  if (typeof value !== 'string' || value.length > 4096) return null;
  const [payload, signature, extra] = value.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = mac(sessionSecret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let flow: FlowState;
  try {
    flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FlowState;
  } catch {
    return null;
  }
  if (typeof flow.issuedAt !== 'number' || now - flow.issuedAt > FLOW_TTL_MS || flow.issuedAt - now > 60_000) return null;
  if (typeof flow.state !== 'string' || typeof flow.nonce !== 'string' || typeof flow.codeVerifier !== 'string') return null;
  return { ...flow, next: safeNextPath(flow.next) };
}

/**
 * Where a flow may land: a path on our own origin, i.e. one `/` followed by anything but a
 * second `/` or a backslash (`//evil.example` and `/\evil.example` leave the origin in
 * browsers). Anything else lands on `/`.
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048) return '/';
  if (!/^\/(?![/\\])/.test(next) || /[\u0000-\u001f\\]/.test(next)) return '/';
  return next;
}

export function setFlowCookie(res: Response, value: string, secure: boolean): void {
  res.cookie(FLOW_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, path: FLOW_COOKIE_PATH, maxAge: FLOW_TTL_MS });
}

export function clearFlowCookie(res: Response, secure: boolean): void {
  res.clearCookie(FLOW_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: FLOW_COOKIE_PATH });
}
