/**
 * Personal access tokens (issue 20; spec: Personal access token, Authentication 3) and the
 * indexes the system panel's audit filter needs.
 *
 * - `api_tokens`: a user's bearer secrets for the public REST API and MCP. Only the SHA-256 of
 *   a secret is stored; the unique index on it is the lookup path of every bearer request.
 *   Revocation is a timestamp, not a delete, so a revoked secret answers `token_revoked`
 *   rather than looking unknown. Tokens go with their owner and with their pond restriction:
 *   a token restricted to a pond that no longer exists must not quietly open every pond.
 * - The audit list pages newest first by (created_at, id). The action filter takes a prefix
 *   (`api.*` → `LIKE 'api.%'`); a plain btree serves LIKE prefixes only under the C collation,
 *   `text_pattern_ops` does under any. The actor filter takes a username: the account's id,
 *   or the name an entry kept (`actor_name`, the username at the time), so entries of a
 *   deleted account are still found by its former name.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TABLE api_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      token_hash bytea NOT NULL UNIQUE,
      scope text NOT NULL CHECK (scope IN ('read', 'write')),
      pond_id uuid REFERENCES ponds (id) ON DELETE CASCADE,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, created_at DESC);
    -- Deleting a pond cascades here; without an index that would scan the table.
    CREATE INDEX api_tokens_pond_idx ON api_tokens (pond_id) WHERE pond_id IS NOT NULL;

    DROP INDEX audit_entries_created_idx;
    CREATE INDEX audit_entries_keyset_idx ON audit_entries (created_at DESC, id DESC);
    CREATE INDEX audit_entries_action_prefix_idx ON audit_entries (action text_pattern_ops, created_at DESC);
    CREATE INDEX audit_entries_actor_name_idx ON audit_entries (lower(actor_name), created_at DESC);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX audit_entries_actor_name_idx;
    DROP INDEX audit_entries_action_prefix_idx;
    DROP INDEX audit_entries_keyset_idx;
    CREATE INDEX audit_entries_created_idx ON audit_entries (created_at DESC);
    DROP TABLE api_tokens;
  `);
}
