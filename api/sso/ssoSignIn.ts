/**
 * What a verified external identity does (spec: Authentication 2, User account). In the
 * callback's one transaction:
 *
 * - Login, identity known: its account signs in (a disabled one is refused with
 *   `account_disabled`).
 * - Login, identity unknown, its e-mail names an existing account: never adopted. A verified
 *   address answers `oidc_link_required` (the owner signs in and links); an address the
 *   provider does not assert as verified answers `oidc_email_unverified`, since
 *   `oidc_link_required` would confirm that an account exists at an address nobody proved.
 * - Login, identity unknown, no account at the address: `oidc_email_missing` without an
 *   address, `oidc_email_unverified` when OIDC_REQUIRE_VERIFIED_EMAIL asks for a verified one,
 *   `registration_closed` when OIDC_AUTO_CREATE is off; else a new ACTIVE account with its
 *   personal pond (the signup command), mail-verified only when the provider says so, no
 *   password, the identity linked.
 * - Link: the identity joins the signed-in caller's account (`auth.identity_linked`), or
 *   `oidc_identity_taken` when another account holds it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { emailSchema } from '../auth/accountSchemas.ts';
import { createAccount } from '../commands/accountCreator.ts';
import type { OidcConfig } from '../config.ts';
import { ApiError } from '../http/apiError.ts';
import { User } from '../models/index.ts';
import { findIdentity, insertIdentity } from './loginIdentities.ts';
import { OidcFailure, type VerifiedIdentity } from './oidcClient.ts';

export interface SignInContext {
  sequelize: Sequelize;
  oidc: OidcConfig;
  passwordHashCost: number;
  /** `oidc:<issuer>` */
  provider: string;
  ip: string | undefined;
}

/** The account a login opens, after the identity's rules; throws OidcFailure for each refusal. */
export async function accountForLogin(context: SignInContext, identity: VerifiedIdentity, transaction: Transaction): Promise<User> {
  const known = await findIdentity(context.sequelize, context.provider, identity.subject, transaction);
  if (known) {
    const user = await User.findByPk(known.userId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!user || user.status === 'deleted') throw new OidcFailure('oidc_failed');
    if (user.status === 'disabled') throw new OidcFailure('account_disabled', undefined, user);
    if (user.status === 'unconfirmed') throw new OidcFailure('oidc_email_unverified');
    return user;
  }
  const email = identity.email === null ? null : validEmail(identity.email);
  if (email !== null && (await accountWithEmailExists(context.sequelize, email, transaction))) {
    throw new OidcFailure(identity.emailVerified ? 'oidc_link_required' : 'oidc_email_unverified');
  }
  if (email === null) throw new OidcFailure('oidc_email_missing');
  if (context.oidc.requireVerifiedEmail && !identity.emailVerified) throw new OidcFailure('oidc_email_unverified');
  if (!context.oidc.autoCreate) throw new OidcFailure('registration_closed');
  return createAccountFor(context, identity, email, transaction);
}

async function createAccountFor(context: SignInContext, identity: VerifiedIdentity, email: string, transaction: Transaction): Promise<User> {
  const username = await freeUsername(context.sequelize, identity.preferredUsername ?? email.split('@')[0] ?? '', transaction);
  let user: User;
  try {
    ({ user } = await createAccount(
      {
        username,
        email,
        password: null,
        displayName: (identity.name ?? username).slice(0, 100),
        locale: null,
        status: 'ACTIVE',
        isSiteAdmin: false,
        emailVerified: identity.emailVerified,
        passwordHashCost: context.passwordHashCost,
      },
      transaction,
    ));
  } catch (error) {
    // Another signup took the name or the address between our check and the insert.
    if (error instanceof ApiError && (error.code === 'username_taken' || error.code === 'email_taken')) throw new OidcFailure('oidc_failed', error);
    throw error;
  }
  await insertIdentity(context.sequelize, { userId: user.id, provider: context.provider, subject: identity.subject, email }, transaction);
  await recordAudit(
    { actor: auditActorOf(user), action: 'auth.signup', details: { username: user.username, email: user.email, method: 'oidc', provider: context.provider, subject: identity.subject }, ip: context.ip },
    transaction,
  );
  return user;
}

/** Links the identity to `user`; linking one it holds already changes nothing. */
export async function linkIdentity(context: SignInContext, user: User, identity: VerifiedIdentity, transaction: Transaction): Promise<void> {
  const known = await findIdentity(context.sequelize, context.provider, identity.subject, transaction);
  if (known?.userId === user.id) return;
  if (known) throw new OidcFailure('oidc_identity_taken');
  try {
    await insertIdentity(context.sequelize, { userId: user.id, provider: context.provider, subject: identity.subject, email: identity.email }, transaction);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'oidc_identity_taken') throw new OidcFailure('oidc_identity_taken', error);
    throw error;
  }
  await recordAudit({ actor: auditActorOf(user), action: 'auth.identity_linked', details: { provider: context.provider, subject: identity.subject }, ip: context.ip }, transaction);
}

function validEmail(value: string): string | null {
  const result = emailSchema.safeParse(value);
  return result.success ? result.data : null;
}

async function accountWithEmailExists(sequelize: Sequelize, email: string, transaction: Transaction): Promise<boolean> {
  const rows = await sequelize.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($1) AND status <> 'deleted') AS found`, {
    bind: [email],
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows[0]?.found === true;
}

const USERNAME_MAX = 32;

/**
 * A username for a new account from the provider's `preferred_username` or the address's
 * local part, made valid (`^[a-z0-9][a-z0-9._-]{2,31}$`: lower case, other characters become
 * `-`, at least three characters) and unique (`-2`, `-3`, … appended).
 */
export function usernameBase(wanted: string): string {
  let base = wanted
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, USERNAME_MAX);
  if (base.length === 0) base = 'user';
  while (base.length < 3) base += '0';
  return base;
}

async function freeUsername(sequelize: Sequelize, wanted: string, transaction: Transaction): Promise<string> {
  const base = usernameBase(wanted);
  const rows = await sequelize.query<{ name: string }>(`SELECT lower(username) AS name FROM users WHERE lower(username) = $1 OR lower(username) LIKE $2`, {
    bind: [base, `${base.slice(0, USERNAME_MAX - 5).replace(/[\\%_]/g, '\\$&')}-%`],
    type: QueryTypes.SELECT,
    transaction,
  });
  const taken = new Set(rows.map((row) => row.name));
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const tail = `-${suffix}`;
    const candidate = `${base.slice(0, USERNAME_MAX - tail.length)}${tail}`;
    if (!taken.has(candidate)) return candidate;
  }
}
