/**
 * The unsubscribe link of digest mails (spec, Authentication 6): a signed, single-purpose
 * token that names one account and does exactly one thing, switching its digest off. It is
 * not stored: `<user id>.<base64url HMAC-SHA256>`, keyed from the instance's session secret
 * under a label per purpose, so neither a collaboration token nor a token of another purpose
 * (nor one made on another instance) is ever accepted for it.
 *
 * It does not expire: a digest read weeks later must still be able to stop the next one, and
 * all it can do is what the account's owner may always do in the settings. Rotating the
 * session secret retires every link at once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../policies/accessPolicy.ts';

/** What a user link may do; the label is part of the key, so a token of one purpose is worthless for another. */
export type UserLinkPurpose = 'digest_unsubscribe';

const MAX_TOKEN_LENGTH = 256;

function signingKey(sessionSecret: string, purpose: UserLinkPurpose): Buffer {
  return createHmac('sha256', sessionSecret).update(`dorfteich user link v1 ${purpose}`).digest();
}

function signature(sessionSecret: string, purpose: UserLinkPurpose, userId: string): Buffer {
  return createHmac('sha256', signingKey(sessionSecret, purpose)).update(userId).digest();
}

export function signUserLinkToken(sessionSecret: string, purpose: UserLinkPurpose, userId: string): string {
  return `${userId}.${signature(sessionSecret, purpose, userId).toString('base64url')}`;
}

/** The account a valid token of `purpose` names; null for anything else (no reason is given out). */
export function verifyUserLinkToken(sessionSecret: string, purpose: UserLinkPurpose, token: unknown): string | null {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
  const [userId, mac, extra] = token.split('.');
  if (!isUuid(userId) || !mac || extra !== undefined) return null;
  // Compared as text: base64url decoding skips stray characters, so decoded bytes would take variants of one token.
  const expected = Buffer.from(signature(sessionSecret, purpose, userId).toString('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return userId;
}

export const signUnsubscribeToken = (sessionSecret: string, userId: string): string => signUserLinkToken(sessionSecret, 'digest_unsubscribe', userId);
export const verifyUnsubscribeToken = (sessionSecret: string, token: unknown): string | null => verifyUserLinkToken(sessionSecret, 'digest_unsubscribe', token);
