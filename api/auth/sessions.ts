/**
 * Browser sessions, the way lucia-auth.com teaches them: a token `<id>.<secret>` made of two
 * random parts; the row keeps only SHA-256(secret), compared in constant time. Expiry
 * slides: a session used in the second half of its lifetime is extended.
 *
 * Ending sessions announces it on `user_sessions_changed` (payload: the user id), in the
 * caller's transaction when it gives one, so the notice goes out only once the change is
 * committed. Every path that ends sessions (logout, password reset or change, disabling or
 * deleting an account) goes through these functions; the collab server listens and closes
 * the sockets the ended sessions opened. Granting or revoking Site Admin announces on the same
 * channel (api/commands/managedAccounts.ts): the collab server then checks that user's sockets.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import { Op, QueryTypes, type Transaction } from 'sequelize';
import { Session, User } from '../models/index.ts';

export const SESSION_COOKIE = 'dt_session';
/** Postgres channel announcing that sessions of a user ended; the payload is the user id. */
export const USER_SESSIONS_CHANNEL = 'user_sessions_changed';

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
  const user = session.user;
  if (!user || !sessionIsLive(session, user)) {
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

/**
 * Whether a session (and the account behind it) may still act: unexpired, and the account
 * neither disabled nor deleted (a deleted account's sessions are ended with it; the status
 * check holds even so). The API asks it on every request, the collab server on connect,
 * at the session's expiry and whenever the user's sessions change.
 */
export function sessionIsLive(session: Pick<Session, 'expiresAt'>, user: Pick<User, 'status'>, now: number = Date.now()): boolean {
  return session.expiresAt.getTime() > now && user.status !== 'disabled' && user.status !== 'deleted';
}

/** Ends one session (logout, or a new sign-in in the same browser) and announces it. */
export async function invalidateSession(sessionId: string, transaction?: Transaction): Promise<void> {
  await Session.sequelize!.query(
    `WITH ended AS (DELETE FROM sessions WHERE id = :sessionId RETURNING user_id)
     SELECT pg_notify(:channel, user_id::text) FROM ended`,
    { replacements: { sessionId, channel: USER_SESSIONS_CHANNEL }, transaction, type: QueryTypes.SELECT },
  );
}

/**
 * Ends every session of the user, optionally keeping one (the caller's own), and announces
 * it, also when there was none to end: the account's state may be what changed (disabled).
 */
export async function invalidateUserSessions(userId: string, transaction?: Transaction, keepSessionId?: string): Promise<void> {
  await Session.destroy({
    where: keepSessionId ? { userId, id: { [Op.ne]: keepSessionId } } : { userId },
    transaction,
  });
  await announceUserSessionsChanged(userId, transaction);
}

/** Tells every listener (the collab server) to check the user's connections again. */
export async function announceUserSessionsChanged(userId: string, transaction?: Transaction): Promise<void> {
  await Session.sequelize!.query(`SELECT pg_notify(:channel, :userId)`, { replacements: { channel: USER_SESSIONS_CHANNEL, userId }, transaction, type: QueryTypes.SELECT });
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
