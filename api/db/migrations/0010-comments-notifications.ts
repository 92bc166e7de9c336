/**
 * Comments, in-app notifications and the digest's bookkeeping (issue 19). Watches exist since
 * 0003; fan-out to a pond's watchers needs them by pond.
 *
 * - `comments`: threads of one level. A reply points at its root (`parent_id`) and carries no
 *   anchor and no resolve state; the CHECKs hold that even against a buggy command. The
 *   Markdown body is kept, and its sanitized HTML render next to it, so a list never renders.
 *   The anchor is the client's Yjs relative-position range (JSON, opaque to the server) plus
 *   the quoted text at creation, for a thread whose passage was deleted.
 * - `notifications`: one row per recipient with a denormalized payload, so the list renders
 *   without joins. Repeated events of one type on one page fold into the recipient's one
 *   unread, unmailed row (`notifications_fold_key`, the target of ON CONFLICT); once read or
 *   mailed, the next event starts a new row. `created_at` is the first folded event (the
 *   digest's cadence counts from it), `updated_at` the last (the list's order).
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    CREATE TABLE comments (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      page_id uuid NOT NULL,
      parent_id uuid REFERENCES comments (id) ON DELETE CASCADE,
      author_id uuid NOT NULL REFERENCES users (id),
      body text NOT NULL,
      body_html text NOT NULL,
      anchor jsonb,
      resolved_at timestamptz,
      resolved_by uuid REFERENCES users (id),
      edited_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE,
      CHECK (parent_id IS NULL OR (anchor IS NULL AND resolved_at IS NULL AND resolved_by IS NULL)),
      CHECK ((resolved_at IS NULL) = (resolved_by IS NULL))
    );
    CREATE INDEX comments_page_idx ON comments (page_id, created_at, id) WHERE parent_id IS NULL;
    CREATE INDEX comments_parent_idx ON comments (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

    CREATE INDEX watches_pond_idx ON watches (pond_id) WHERE target_type = 'pond';

    CREATE TABLE notifications (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('page_changed', 'comment', 'mentioned')),
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      page_id uuid NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      read_at timestamptz,
      mailed_at timestamptz,
      FOREIGN KEY (page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE CASCADE
    );
    CREATE UNIQUE INDEX notifications_fold_key ON notifications (user_id, page_id, type) WHERE read_at IS NULL AND mailed_at IS NULL;
    -- The list: unread first, newest first, keyset-paged.
    CREATE INDEX notifications_list_idx ON notifications (user_id, (read_at IS NOT NULL), updated_at DESC, id DESC);
    CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;
    -- The digest: whose oldest pending entry is due.
    CREATE INDEX notifications_pending_idx ON notifications (user_id, created_at) WHERE read_at IS NULL AND mailed_at IS NULL;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE notifications;
    DROP INDEX watches_pond_idx;
    DROP TABLE comments;
  `);
}
