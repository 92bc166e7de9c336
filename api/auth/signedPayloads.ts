/**
 * Values we hand out signed instead of storing (the collaboration token, the OIDC flow
 * cookie): `<base64url JSON>.<base64url HMAC-SHA256>`, keyed by the instance's session secret
 * under a purpose label of each kind's own, so one kind of signed value is never accepted as
 * another. The signature is compared in constant time; checking what the JSON holds is the
 * caller's part.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function signatureOf(sessionSecret: string, purpose: string, payload: string): Buffer {
  const key = createHmac('sha256', sessionSecret).update(purpose).digest();
  return createHmac('sha256', key).update(payload).digest();
}

export function signPayload(sessionSecret: string, purpose: string, value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${signatureOf(sessionSecret, purpose, payload).toString('base64url')}`;
}

/** The JSON of an intact signed value no longer than `maxLength`; null for anything else. */
export function readSignedPayload(sessionSecret: string, purpose: string, signed: unknown, maxLength: number): unknown {
  if (typeof signed !== 'string' || signed.length > maxLength) return null;
  const [payload, signature, extra] = signed.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = signatureOf(sessionSecret, purpose, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}
