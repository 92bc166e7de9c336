/**
 * Collaborative documents and what is derived from them.
 *
 * - `page_updates`: the append-only Yjs update log of a page. A document is the merge of all
 *   its rows; compaction replaces many rows by one merged row (the snapshot) without touching
 *   rows appended meanwhile. An update acknowledged to a client is already a row here.
 * - `page_contents`: the render caches (HTML, Markdown), outline and plain text of the last save.
 * - `page_links` / `page_mentions`: the outgoing wikilinks (resolved or phantom) and mentions.
 * - `page_versions`: full self-contained snapshots; `page_contributors`: who edited since the
 *   last version, consumed when the next version is written.
 * - `collab_sessions`: one row per live collaboration connection, kept fresh by a heartbeat,
 *   so a crashed collab process's sessions age out.
 *
 * \`pages.initial_markdown\` of pages created before this migration is turned into the first log
 * row when such a page is first loaded (api/collab/documentLog.ts); new pages get theirs at creation.
 *
 * Everything cascades with its page (pageForeignKeys.test.ts), a resolved link target is set
 * null when the target goes: it turns back into a phantom.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE EXTENSION IF NOT EXISTS unaccent;
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    -- unaccent() is STABLE (it depends on the dictionary search path); indexes need IMMUTABLE.
    CREATE FUNCTION dt_unaccent(text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      RETURN public.unaccent('public.unaccent'::regdictionary, $1);

    CREATE TABLE page_updates (
      id bigserial PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      update bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX page_updates_page_idx ON page_updates (page_id, id);

    CREATE TABLE page_contents (
      page_id uuid PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
      html text NOT NULL,
      markdown text NOT NULL,
      outline jsonb NOT NULL DEFAULT '[]',
      plain_text text NOT NULL,
      word_count integer NOT NULL DEFAULT 0,
      rendered_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE page_links (
      source_page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      -- As written in the link; resolution compares lower(), like the unique slug index.
      target_slug text NOT NULL,
      -- Null while no live page of the pond has that slug: a phantom link.
      target_page_id uuid REFERENCES pages (id) ON DELETE SET NULL,
      snippet text NOT NULL DEFAULT '',
      PRIMARY KEY (source_page_id, target_slug)
    );
    CREATE INDEX page_links_target_idx ON page_links (target_page_id) WHERE target_page_id IS NOT NULL;
    CREATE INDEX page_links_phantom_idx ON page_links (pond_id, lower(target_slug)) WHERE target_page_id IS NULL;
    CREATE INDEX page_links_slug_idx ON page_links (pond_id, lower(target_slug));

    CREATE TABLE page_mentions (
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (page_id, user_id)
    );
    CREATE INDEX page_mentions_user_idx ON page_mentions (user_id);

    CREATE TABLE page_versions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      -- 'auto' (last participant left, or 30 active-editing minutes), 'MANUAL', 'pre_restore'.
      trigger text NOT NULL CHECK (trigger IN ('auto', 'MANUAL', 'pre_restore')),
      label text,
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      -- Y.encodeStateAsUpdate of the document: self-contained.
      state bytea NOT NULL,
      -- Resolved to display names when read; a deleted user drops out.
      contributor_ids uuid[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX page_versions_page_idx ON page_versions (page_id, created_at DESC, id DESC);

    CREATE TABLE page_contributors (
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      last_edit_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (page_id, user_id)
    );

    CREATE TABLE collab_sessions (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      -- The collab process that holds the connection (host:pid:start).
      instance_id text NOT NULL,
      mode text NOT NULL CHECK (mode IN ('rw', 'ro')),
      connected_at timestamptz NOT NULL DEFAULT now(),
      heartbeat_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX collab_sessions_page_idx ON collab_sessions (page_id, heartbeat_at);
    CREATE INDEX collab_sessions_instance_idx ON collab_sessions (instance_id);
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE collab_sessions, page_contributors, page_versions, page_mentions, page_links, page_contents, page_updates;
    DROP FUNCTION dt_unaccent(text);
  `);
}
