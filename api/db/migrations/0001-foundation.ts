/**
 * Accounts, sessions, one-time e-mail tokens, instance settings, the audit log, the mail
 * outbox, rate-limit counters, and the pond + grant tables that signup needs for the
 * personal pond.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      username text NOT NULL,
      email text NOT NULL,
      display_name text NOT NULL,
      locale text CHECK (locale IN ('de', 'en')),
      status text NOT NULL DEFAULT 'unconfirmed' CHECK (status IN ('unconfirmed', 'ACTIVE', 'disabled')),
      is_site_admin boolean NOT NULL DEFAULT false,
      password_hash text,
      email_verified_at timestamptz,
      digest_frequency text NOT NULL DEFAULT 'hourly' CHECK (digest_frequency IN ('hourly', 'daily', 'off')),
      auto_watch_own_pages boolean NOT NULL DEFAULT true,
      auto_watch_on_comment boolean NOT NULL DEFAULT true,
      last_login_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_username_key ON users (lower(username));
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));

    CREATE TABLE sessions (
      id text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      secret_hash bytea NOT NULL,
      expires_at timestamptz NOT NULL,
      last_seen_ip text,
      user_agent text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sessions_user_id_idx ON sessions (user_id);

    CREATE TABLE email_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
      token_hash bytea NOT NULL UNIQUE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);

    CREATE TABLE settings (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      updated_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE audit_entries (
      id bigserial PRIMARY KEY,
      actor_id uuid,
      actor_name text,
      action text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      ip text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX audit_entries_created_idx ON audit_entries (created_at DESC);
    CREATE INDEX audit_entries_action_idx ON audit_entries (action, created_at DESC);
    CREATE INDEX audit_entries_actor_idx ON audit_entries (actor_id, created_at DESC);
    -- The audit log is append-only: the database itself refuses edits and deletions.
    CREATE FUNCTION audit_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_entries is append-only';
      END;
    $$;
    CREATE TRIGGER audit_entries_no_update BEFORE UPDATE OR DELETE ON audit_entries
      FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();
    CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
      FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_append_only();

    CREATE TABLE mail_outbox (
      id bigserial PRIMARY KEY,
      recipient text NOT NULL,
      subject text NOT NULL,
      text_body text NOT NULL,
      html_body text NOT NULL,
      kind text NOT NULL,
      status text NOT NULL CHECK (status IN ('sent', 'not_configured', 'failed')),
      error text,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE rate_limit_counters (
      key text PRIMARY KEY,
      window_started_at timestamptz NOT NULL,
      hits integer NOT NULL
    );

    CREATE TABLE ponds (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      slug text NOT NULL,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('personal', 'shared')),
      owner_id uuid REFERENCES users (id) ON DELETE SET NULL,
      settings jsonb NOT NULL DEFAULT '{}',
      trashed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX ponds_slug_key ON ponds (lower(slug));
    CREATE UNIQUE INDEX ponds_one_personal_per_owner ON ponds (owner_id) WHERE kind = 'personal';

    CREATE TABLE grants (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      subject_type text NOT NULL CHECK (subject_type IN ('user', 'signed-in', 'public')),
      subject_user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('pond_admin', 'editor', 'reader')),
      scope_type text NOT NULL CHECK (scope_type IN ('pond', 'label', 'page')),
      scope_id uuid,
      effect text NOT NULL CHECK (effect IN ('allow', 'deny')),
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((subject_type = 'user') = (subject_user_id IS NOT NULL)),
      CHECK ((scope_type = 'pond') = (scope_id IS NULL)),
      CHECK (role <> 'pond_admin' OR (scope_type = 'pond' AND subject_type = 'user'))
    );
    CREATE UNIQUE INDEX grants_unique_rule ON grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_id) NULLS NOT DISTINCT;
    CREATE INDEX grants_subject_user_idx ON grants (subject_user_id);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE IF EXISTS grants;
    DROP TABLE IF EXISTS ponds;
    DROP TABLE IF EXISTS rate_limit_counters;
    DROP TABLE IF EXISTS mail_outbox;
    DROP TABLE IF EXISTS audit_entries;
    DROP FUNCTION IF EXISTS audit_entries_append_only();
    DROP TABLE IF EXISTS settings;
    DROP TABLE IF EXISTS email_tokens;
    DROP TABLE IF EXISTS sessions;
    DROP TABLE IF EXISTS users;
  `);
}
