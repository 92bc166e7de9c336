/**
 * The `login_identities` rows (migration 0018): which external identity opens which account.
 * Reads and writes run in the caller's transaction; the unlink rule (never the last way in)
 * is checked under a lock on the owner's row, so two unlinks of an account's last two
 * identities cannot both pass.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { violatedUniqueIndex } from '../db/uniqueViolations.ts';
import { ApiError } from '../http/apiError.ts';
import { isUuid } from '../policies/accessPolicy.ts';

export interface LoginIdentity {
  id: string;
  userId: string;
  provider: string;
  subject: string;
  email: string | null;
  createdAt: Date;
}

interface IdentityRow {
  id: string;
  user_id: string;
  provider: string;
  subject: string;
  email: string | null;
  created_at: Date;
}

const COLUMNS = 'id, user_id, provider, subject, email, created_at';

function toIdentity(row: IdentityRow): LoginIdentity {
  return { id: row.id, userId: row.user_id, provider: row.provider, subject: row.subject, email: row.email, createdAt: new Date(row.created_at) };
}

export async function findIdentity(sequelize: Sequelize, provider: string, subject: string, transaction: Transaction): Promise<LoginIdentity | null> {
  const [row] = await sequelize.query<IdentityRow>(`SELECT ${COLUMNS} FROM login_identities WHERE provider = $1 AND subject = $2`, {
    bind: [provider, subject],
    type: QueryTypes.SELECT,
    transaction,
  });
  return row ? toIdentity(row) : null;
}

export async function listIdentities(sequelize: Sequelize, userId: string): Promise<LoginIdentity[]> {
  const rows = await sequelize.query<IdentityRow>(`SELECT ${COLUMNS} FROM login_identities WHERE user_id = $1 ORDER BY created_at, id`, {
    bind: [userId],
    type: QueryTypes.SELECT,
  });
  return rows.map(toIdentity);
}

/** Links an identity; one another account took meanwhile answers `oidc_identity_taken`. */
export async function insertIdentity(
  sequelize: Sequelize,
  identity: { userId: string; provider: string; subject: string; email: string | null },
  transaction: Transaction,
): Promise<LoginIdentity> {
  try {
    // In a savepoint, so a lost race leaves the caller's transaction usable for its answer.
    return await sequelize.transaction({ transaction }, async (savepoint) => {
      const [row] = await sequelize.query<IdentityRow>(
        `INSERT INTO login_identities (user_id, provider, subject, email) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
        { bind: [identity.userId, identity.provider, identity.subject, identity.email], type: QueryTypes.SELECT, transaction: savepoint },
      );
      return toIdentity(row!);
    });
  } catch (error) {
    if (violatedUniqueIndex(error) === 'login_identities_provider_subject_key') throw new ApiError('oidc_identity_taken');
    throw error;
  }
}

/**
 * Unlinks the caller's identity `identityId`; null when the caller has none by that id (an
 * unknown id and another user's look alike). Refuses with `identity_last_sign_in_method` when
 * the account would be left without a password and without another identity.
 */
export async function unlinkIdentity(sequelize: Sequelize, userId: string, identityId: string, transaction: Transaction): Promise<LoginIdentity | null> {
  if (!isUuid(identityId)) return null;
  const [owner] = await sequelize.query<{ has_password: boolean }>(`SELECT password_hash IS NOT NULL AS has_password FROM users WHERE id = $1 FOR UPDATE`, {
    bind: [userId],
    type: QueryTypes.SELECT,
    transaction,
  });
  const rows = await sequelize.query<IdentityRow>(`SELECT ${COLUMNS} FROM login_identities WHERE user_id = $1`, { bind: [userId], type: QueryTypes.SELECT, transaction });
  const target = rows.find((row) => row.id === identityId);
  if (!owner || !target) return null;
  if (!owner.has_password && rows.length === 1) throw new ApiError('identity_last_sign_in_method');
  await sequelize.query(`DELETE FROM login_identities WHERE id = $1`, { bind: [identityId], type: QueryTypes.DELETE, transaction });
  return toIdentity(target);
}
