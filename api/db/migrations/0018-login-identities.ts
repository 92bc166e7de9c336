/**
 * Single sign-on identities (issue 41; spec: Authentication 2, User account "login
 * identities"). One row per external identity linked to an account: the provider as
 * `oidc:<issuer>` and the provider's subject, unique together, so one identity opens exactly
 * one account. The e-mail is what the provider said at linking time, shown to the owner in
 * the settings; it never decides anything. Rows go with their account (an admin deletion
 * removes them explicitly, since deleted accounts keep their row).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TABLE login_identities (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider LIKE 'oidc:%'),
      subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
      email text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT login_identities_provider_subject_key UNIQUE (provider, subject)
    );
    CREATE INDEX login_identities_user_idx ON login_identities (user_id, created_at);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`DROP TABLE login_identities;`);
}
