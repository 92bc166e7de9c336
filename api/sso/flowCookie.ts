/**
 * The OpenID Connect flow cookie `dt_oidc` (ARCHITECTURE, "Single sign-on"): what `start`
 * chose and `callback` must check — state, nonce, the PKCE verifier, where to land, when it
 * was issued and what the flow is for (a login, or linking an identity to a signed-in user).
 * Not stored anywhere: `<base64url JSON>.<base64url HMAC-SHA256>`, keyed by the session secret
 * under a purpose label of its own (api/auth/signedPayloads.ts), HttpOnly, SameSite=Lax (the
 * provider's redirect back is a top-level GET), 10 minutes, sent only to the OIDC routes.
 */
import type { Response } from 'express';
import { safeNextPath as sameOriginPath } from '../../editor/src/navigation/safeNextPath.ts';
import { readSignedPayload, signPayload } from '../auth/signedPayloads.ts';

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

const FLOW_PURPOSE = 'dorfteich oidc flow v1';

export function signFlow(sessionSecret: string, flow: FlowState): string {
  return signPayload(sessionSecret, FLOW_PURPOSE, flow);
}

/** The flow of an intact cookie younger than 10 minutes; null for a missing, forged or stale one. */
export function verifyFlow(sessionSecret: string, value: string | undefined, now: number = Date.now()): FlowState | null {
  const flow = readSignedPayload(sessionSecret, FLOW_PURPOSE, value, 4096) as FlowState | null;
  if (typeof flow !== 'object' || flow === null) return null;
  if (typeof flow.issuedAt !== 'number' || now - flow.issuedAt > FLOW_TTL_MS || flow.issuedAt - now > 60_000) return null;
  if (typeof flow.state !== 'string' || typeof flow.nonce !== 'string' || typeof flow.codeVerifier !== 'string') return null;
  return { ...flow, next: safeNextPath(flow.next) };
}

/** Where a flow may land: the login page's own rule for `next` (a path on this origin, else `/`). */
export function safeNextPath(next: unknown): string {
  return typeof next === 'string' && next.length <= 2048 ? sameOriginPath(next) : '/';
}

export function setFlowCookie(res: Response, value: string, secure: boolean): void {
  res.cookie(FLOW_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, path: FLOW_COOKIE_PATH, maxAge: FLOW_TTL_MS });
}

export function clearFlowCookie(res: Response, secure: boolean): void {
  res.clearCookie(FLOW_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: FLOW_COOKIE_PATH });
}
