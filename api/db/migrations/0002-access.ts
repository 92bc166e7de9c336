/**
 * Pages, labels, label assignments and quota overrides, and grants that point at a label or
 * a page through real foreign keys (so deleting a label or purging a page takes its grants
 * with it). Composite keys `(id, pond_id)` make "the label / page is in this pond" a
 * constraint, not a hope.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    -- The pond's choice from the built-in font catalog: { body, heading, code } ids.
    ALTER TABLE ponds
      ADD COLUMN fonts jsonb NOT NULL DEFAULT '{}',
      ADD COLUMN trashed_by uuid REFERENCES users (id) ON DELETE SET NULL;

    CREATE TABLE pages (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      slug text NOT NULL,
      title text NOT NULL,
      parent_id uuid,
      -- A fractional key: sorts bytewise (COLLATE "C") inside one sibling group.
      position text COLLATE "C" NOT NULL,
      trashed_at timestamptz,
      trashed_by uuid REFERENCES users (id) ON DELETE SET NULL,
      -- Markdown given at creation, until the collaboration server turns it into the document.
      initial_markdown text,
      -- Cleared while the page or its pond is in the trash; filled by api/search/pageSearchIndex.ts.
      search_vector tsvector,
      created_by uuid REFERENCES users (id) ON DELETE SET NULL,
      updated_by uuid REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, pond_id),
      FOREIGN KEY (parent_id, pond_id) REFERENCES pages (id, pond_id),
      CHECK (parent_id <> id)
    );
    CREATE UNIQUE INDEX pages_slug_key ON pages (pond_id, lower(slug));
    CREATE INDEX pages_pond_created_idx ON pages (pond_id, created_at, id);
    CREATE INDEX pages_parent_idx ON pages (parent_id);

    CREATE TABLE labels (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      parent_id uuid,
      name text NOT NULL,
      color text NOT NULL CHECK (color ~ '^#[0-9a-f]{6}$'),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (id, pond_id),
      FOREIGN KEY (parent_id, pond_id) REFERENCES labels (id, pond_id) ON DELETE CASCADE,
      CHECK (parent_id <> id)
    );
    CREATE UNIQUE INDEX labels_name_key ON labels (pond_id, parent_id, lower(name)) NULLS NOT DISTINCT;

    CREATE TABLE page_labels (
      page_id uuid NOT NULL,
      label_id uuid NOT NULL,
      pond_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (page_id, label_id),
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE,
      FOREIGN KEY (label_id, pond_id) REFERENCES labels (id, pond_id) ON DELETE CASCADE
    );
    CREATE INDEX page_labels_pond_idx ON page_labels (pond_id);
    CREATE INDEX page_labels_label_idx ON page_labels (label_id);

    ALTER TABLE grants DROP CONSTRAINT grants_check1;
    DROP INDEX grants_unique_rule;
    ALTER TABLE grants DROP COLUMN scope_id;
    ALTER TABLE grants
      ADD COLUMN scope_label_id uuid,
      ADD COLUMN scope_page_id uuid,
      ADD FOREIGN KEY (scope_label_id, pond_id) REFERENCES labels (id, pond_id) ON DELETE CASCADE,
      ADD FOREIGN KEY (scope_page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE,
      ADD CONSTRAINT grants_scope_target CHECK (
        (scope_type = 'pond' AND scope_label_id IS NULL AND scope_page_id IS NULL)
        OR (scope_type = 'label' AND scope_label_id IS NOT NULL AND scope_page_id IS NULL)
        OR (scope_type = 'page' AND scope_page_id IS NOT NULL AND scope_label_id IS NULL));
    CREATE UNIQUE INDEX grants_unique_rule ON grants
      (pond_id, subject_type, subject_user_id, role, scope_type, scope_label_id, scope_page_id) NULLS NOT DISTINCT;
    CREATE INDEX grants_pond_idx ON grants (pond_id);

    -- The quota ladder: a pond override beats a user override beats the instance default.
    CREATE TABLE quota_overrides (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid REFERENCES ponds (id) ON DELETE CASCADE,
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      quota text NOT NULL CHECK (quota IN ('editors_per_pond', 'readers_per_pond', 'storage_bytes', 'max_file_bytes')),
      -- NULL means unlimited.
      value bigint CHECK (value >= 0),
      updated_by uuid REFERENCES users (id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((pond_id IS NULL) <> (user_id IS NULL))
    );
    CREATE UNIQUE INDEX quota_overrides_key ON quota_overrides (pond_id, user_id, quota) NULLS NOT DISTINCT;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE IF EXISTS quota_overrides;
    DROP INDEX grants_unique_rule;
    DELETE FROM grants WHERE scope_type <> 'pond';
    ALTER TABLE grants DROP CONSTRAINT grants_scope_target, DROP COLUMN scope_label_id, DROP COLUMN scope_page_id;
    ALTER TABLE grants ADD COLUMN scope_id uuid, ADD CONSTRAINT grants_check1 CHECK ((scope_type = 'pond') = (scope_id IS NULL));
    CREATE UNIQUE INDEX grants_unique_rule ON grants (pond_id, subject_type, subject_user_id, role, scope_type, scope_id) NULLS NOT DISTINCT;
    DROP INDEX IF EXISTS grants_pond_idx;
    DROP TABLE IF EXISTS page_labels;
    DROP TABLE IF EXISTS labels;
    DROP TABLE IF EXISTS pages;
    ALTER TABLE ponds DROP COLUMN fonts, DROP COLUMN trashed_by;
  `);
}
