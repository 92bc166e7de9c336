/**
 * Creates an account together with its personal pond and the owner's pond-scope
 * `pond_admin` grant, in the caller's transaction: all three rows exist, or none.
 */
import { QueryTypes, type Transaction } from 'sequelize';
import { hashPassword } from '../auth/passwords.ts';
import { uniqueViolationError, violatedUniqueIndex } from '../db/uniqueViolations.ts';
import { ApiError } from '../http/apiError.ts';
import { Grant, Pond, User, type UserStatus } from '../models/index.ts';
import { derivePondSlug } from './pondCommands.ts';

export interface AccountProps {
  username: string;
  email: string;
  /** Null: the account has no password yet (a Site Admin created it and hands over a set-password link). */
  password: string | null;
  displayName: string;
  locale: 'de' | 'en' | null;
  status: UserStatus;
  isSiteAdmin: boolean;
  emailVerified: boolean;
  passwordHashCost: number;
}

export async function createAccount(props: AccountProps, transaction: Transaction): Promise<{ user: User; pond: Pond }> {
  await assertIdentityFree(props.username, props.email, transaction);
  const passwordHash = props.password === null ? null : await hashPassword(props.password, props.passwordHashCost);
  let user: User;
  try {
    user = await User.create(
      {
        username: props.username,
        email: props.email,
        displayName: props.displayName,
        locale: props.locale,
        status: props.status,
        isSiteAdmin: props.isSiteAdmin,
        passwordHash,
        emailVerifiedAt: props.emailVerified ? new Date() : null,
      },
      { transaction },
    );
  } catch (error) {
    // A concurrent signup won the race between our check and the insert.
    throw uniqueViolationError(error) ?? error;
  }
  const pond = await createPersonalPond(user, transaction);
  await Grant.create(
    { pondId: pond.id, subjectType: 'user', subjectUserId: user.id, role: 'pond_admin', scopeType: 'pond', scopeLabelId: null, scopePageId: null, effect: 'allow', createdBy: user.id },
    { transaction },
  );
  return { user, pond };
}

/**
 * The personal pond, with a slug derived from the username. Two signups can race for the
 * same slug (`anna` and `Anna.`); the loser retries with the next free one, inside a
 * savepoint so the signup's transaction survives the failed insert.
 */
async function createPersonalPond(user: User, transaction: Transaction): Promise<Pond> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await Pond.sequelize!.transaction({ transaction }, async (savepoint) =>
        Pond.create({ slug: await freePondSlug(user.username, savepoint), name: user.displayName, kind: 'personal', ownerId: user.id }, { transaction: savepoint }),
      );
    } catch (error) {
      if (violatedUniqueIndex(error) !== 'ponds_slug_key' || attempt >= 3) throw error;
    }
  }
}

async function assertIdentityFree(username: string, email: string, transaction: Transaction): Promise<void> {
  const rows = await User.sequelize!.query<{ username_taken: boolean; email_taken: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM users WHERE lower(username) = lower(:username)) AS username_taken,
            EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(:email)) AS email_taken`,
    { replacements: { username, email }, type: QueryTypes.SELECT, transaction },
  );
  if (rows[0]?.username_taken) throw new ApiError('username_taken');
  if (rows[0]?.email_taken) throw new ApiError('email_taken');
}

/**
 * The personal pond's slug: the username slugified (`Jörg.Müller` → `joerg-mueller`), with
 * reserved slugs skipped and `-<n>` appended when a pond already took it.
 */
export async function freePondSlug(username: string, transaction: Transaction): Promise<string> {
  return derivePondSlug(username, transaction);
}
