/**
 * The page tree's lifecycle: live sibling positions are unique, a restored page remembers
 * the parent it came from while that parent is still in the trash (so restoring pages of
 * one subtree in any order rebuilds the same tree), favorites, watches and attachments.
 *
 * Everything that hangs off a page either cascades with it or is set null: purging a page
 * is one `DELETE` after its children have been promoted (guarded by pageForeignKeys.test.ts).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    ALTER TABLE pages
      -- Set while a restored page waits under a stand-in parent for its own parent to be restored.
      ADD COLUMN home_parent_id uuid REFERENCES pages (id) ON DELETE SET NULL,
      ADD COLUMN home_position text COLLATE "C",
      -- The foreign key's SET NULL leaves home_position behind; it is ignored without a home parent.
      ADD CONSTRAINT pages_home_complete CHECK (home_parent_id IS NULL OR home_position IS NOT NULL);

    -- Live siblings never share a key, so their order is total without a tie-breaker.
    CREATE UNIQUE INDEX pages_live_sibling_position_key ON pages (pond_id, parent_id, position) NULLS NOT DISTINCT
      WHERE trashed_at IS NULL;
    CREATE INDEX pages_trash_idx ON pages (pond_id, trashed_at) WHERE trashed_at IS NOT NULL;
    CREATE INDEX pages_home_parent_idx ON pages (home_parent_id) WHERE home_parent_id IS NOT NULL;

    CREATE TABLE favorites (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      page_id uuid NOT NULL,
      pond_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, page_id),
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE
    );
    CREATE INDEX favorites_user_pond_idx ON favorites (user_id, pond_id, created_at, page_id);
    CREATE INDEX favorites_page_idx ON favorites (page_id);

    CREATE TABLE watches (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      target_type text NOT NULL CHECK (target_type IN ('page', 'pond')),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      page_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE,
      CHECK ((target_type = 'page') = (page_id IS NOT NULL))
    );
    CREATE UNIQUE INDEX watches_target_key ON watches (user_id, target_type, pond_id, page_id) NULLS NOT DISTINCT;
    CREATE INDEX watches_page_idx ON watches (page_id) WHERE page_id IS NOT NULL;

    -- Attachments. The bytes live under DATA_DIR/files (api/files/fileStore.ts); a pond's
    -- storage use is the sum of its rows' sizes, so deleting a row releases its quota.
    CREATE TABLE files (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      -- Null until the upload is claimed by a page.
      page_id uuid,
      uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
      extension text NOT NULL,
      content_type text NOT NULL,
      size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
      -- Null for rows that pre-date hashing, until backfilled.
      sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE
    );
    CREATE INDEX files_pond_idx ON files (pond_id);
    CREATE INDEX files_page_idx ON files (page_id) WHERE page_id IS NOT NULL;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE IF EXISTS files;
    DROP TABLE IF EXISTS watches;
    DROP TABLE IF EXISTS favorites;
    DROP INDEX IF EXISTS pages_home_parent_idx;
    DROP INDEX IF EXISTS pages_trash_idx;
    DROP INDEX IF EXISTS pages_live_sibling_position_key;
    ALTER TABLE pages DROP CONSTRAINT pages_home_complete, DROP COLUMN home_position, DROP COLUMN home_parent_id;
  `);
}
