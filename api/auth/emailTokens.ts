/**
 * Single-use links: sent by mail (e-mail verification, password reset) or handed over by a
 * Site Admin (password reset). The link carries a random token; the row keeps only its SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Op, type Transaction } from 'sequelize';
import { ApiError } from '../http/apiError.ts';
import { EmailToken, type EmailTokenPurpose } from '../models/index.ts';

export const TOKEN_LIFETIME_MS: Record<EmailTokenPurpose, number> = {
  verify_email: 24 * 60 * 60 * 1000,
  reset_password: 60 * 60 * 1000,
  admin_reset_password: 60 * 60 * 1000,
};

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Issues a new link token; earlier unused tokens of the same purpose stop working. `lifetimeMs`
 * overrides the purpose's lifetime (the set-password link of an account a Site Admin creates
 * lives a day: it is handed over by hand, not clicked from a mail a minute later).
 */
export async function issueEmailToken(
  userId: string,
  purpose: EmailTokenPurpose,
  transaction: Transaction,
  options: { lifetimeMs?: number } = {},
): Promise<{ token: string; expiresAt: Date }> {
  await retireEmailTokens(userId, [purpose], transaction);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + (options.lifetimeMs ?? TOKEN_LIFETIME_MS[purpose]));
  await EmailToken.create({ userId, purpose, tokenHash: hashToken(token), expiresAt }, { transaction });
  return { token, expiresAt };
}

/** Unused tokens of these purposes stop working (e.g. every reset link once the password was reset). */
export async function retireEmailTokens(userId: string, purposes: EmailTokenPurpose[], transaction: Transaction): Promise<void> {
  await EmailToken.destroy({ where: { userId, purpose: purposes, usedAt: { [Op.is]: null } }, transaction });
}

/** Marks the token used and returns it; throws `token_invalid` or `token_expired`. */
export async function consumeEmailToken(token: string, purposes: EmailTokenPurpose[], transaction: Transaction): Promise<EmailToken> {
  const row = await EmailToken.findOne({
    where: { tokenHash: hashToken(token), purpose: purposes },
    transaction,
    lock: transaction.LOCK.UPDATE,
  });
  if (!row || row.usedAt) throw new ApiError('token_invalid');
  if (row.expiresAt.getTime() <= Date.now()) throw new ApiError('token_expired');
  row.usedAt = new Date();
  await row.save({ transaction });
  return row;
}
