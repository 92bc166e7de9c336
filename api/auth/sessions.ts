/**
 * Browser sessions, the way lucia-auth.com teaches them: a token `<id>.<secret>` made of two
 * random parts; the row keeps only SHA-256(secret), compared in constant time. Expiry
 * slides: a session used in the second half of its lifetime is extended.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import { Op, type Transaction } from 'sequelize';
import { Session, User } from '../models/index.ts';

export const SESSION_COOKIE = 'dt_session';

export interface SessionPolicy {
  ttlDays: number;
}

export interface ValidatedSession {
  session: Session;
  user: User;
  /** The expiry moved: the cookie must be sent again. */
  refreshed: boolean;
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export async function createSession(
  userId: string,
  context: { ip: string | null; userAgent: string | null; policy: SessionPolicy },
  transaction?: Transaction,
): Promise<{ token: string; session: Session }> {
  const id = randomBytes(15).toString('base64url');
  const secret = randomBytes(24).toString('base64url');
  const session = await Session.create(
    {
      id,
      userId,
      secretHash: hashSecret(secret),
      expiresAt: new Date(Date.now() + context.policy.ttlDays * 86_400_000),
      lastSeenIp: context.ip,
      userAgent: context.userAgent?.slice(0, 512) ?? null,
    },
    { transaction },
  );
  return { token: `${id}.${secret}`, session };
}

export async function validateSessionToken(token: string, policy: SessionPolicy): Promise<ValidatedSession | null> {
  const [id, secret, extra] = token.split('.');
  if (!id || !secret || extra !== undefined || id.length > 64 || secret.length > 128) return null;
  // One round trip: every authenticated request passes here.
  const session = await Session.findByPk(id, { include: [{ model: User, as: 'user' }] });
  if (!session) return null;
  const given = hashSecret(secret);
  const stored = Buffer.from(session.secretHash);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  if (session.expiresAt.getTime() <= Date.now()) {
    await session.destroy();
    return null;
  }
  const user = session.user;
  if (!user || user.status === 'disabled') {
    await session.destroy();
    return null;
  }
  const lifetimeMs = policy.ttlDays * 86_400_000;
  let refreshed = false;
  if (session.expiresAt.getTime() - Date.now() < lifetimeMs / 2) {
    session.expiresAt = new Date(Date.now() + lifetimeMs);
    await session.save();
    refreshed = true;
  }
  return { session, user, refreshed };
}

export async function invalidateSession(sessionId: string): Promise<void> {
  await Session.destroy({ where: { id: sessionId } });
}

/** Ends every session of the user, optionally keeping one (the caller's own). */
export async function invalidateUserSessions(userId: string, transaction?: Transaction, keepSessionId?: string): Promise<void> {
  await Session.destroy({
    where: keepSessionId ? { userId, id: { [Op.ne]: keepSessionId } } : { userId },
    transaction,
  });
}

export function setSessionCookie(res: Response, token: string, expiresAt: Date, secure: boolean): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires: expiresAt });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}

/** Reads one cookie without a parser dependency; values are not URL-decoded (ours are base64url). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return null;
}
