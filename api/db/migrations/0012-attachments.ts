/**
 * Attachments (issue 21; spec: Attachment, Files and media endpoints, Limits). The `files`
 * table exists since 0003; this adds what uploads, claims and the orphan sweep need:
 *
 * - `upload_page_id`: the page an upload was made to (`POST /pages/:id/files`). Access to an
 *   unclaimed file is access to that page; its save claims the file when the document
 *   references it. The purge of that page deletes its unclaimed uploads itself; a claimed
 *   file belongs to its claiming page, so the key only forgets the upload page
 *   (`SET NULL (upload_page_id)`, Postgres 15).
 * - `page_id` (0003): set by the save path on the first save whose document references the
 *   file (an image node's `fileId`, a link to `/api/v1/media/<id>`); null until then.
 * - `embedded`: whether the claiming page's current document still references the file;
 *   rewritten by every save of that page. Claimed but unembedded files are kept (the spec);
 *   the pond's file list flags them as orphans, with the unclaimed ones.
 * - `name`: the uploaded file name as shown (cleaned: no path, no control characters, NFC).
 * - The sweep looks for unclaimed rows by age; the pond's usage is a sum over `files_pond_idx`.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    ALTER TABLE files
      ADD COLUMN upload_page_id uuid,
      ADD COLUMN embedded boolean NOT NULL DEFAULT false,
      ADD COLUMN name text NOT NULL DEFAULT '' CHECK (char_length(name) <= 255),
      ADD CONSTRAINT files_upload_page_fkey FOREIGN KEY (upload_page_id, pond_id) REFERENCES pages (id, pond_id) ON DELETE SET NULL (upload_page_id),
      ADD CONSTRAINT files_extension_format CHECK (extension ~ '^[a-z0-9]{1,16}$');
    CREATE INDEX files_upload_page_idx ON files (upload_page_id) WHERE upload_page_id IS NOT NULL;
    CREATE INDEX files_unclaimed_idx ON files (created_at) WHERE page_id IS NULL;
    CREATE INDEX files_unhashed_idx ON files (created_at) WHERE sha256 IS NULL;
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP INDEX IF EXISTS files_unhashed_idx;
    DROP INDEX IF EXISTS files_unclaimed_idx;
    DROP INDEX IF EXISTS files_upload_page_idx;
    ALTER TABLE files
      DROP CONSTRAINT IF EXISTS files_extension_format,
      DROP CONSTRAINT IF EXISTS files_upload_page_fkey,
      DROP COLUMN IF EXISTS name,
      DROP COLUMN IF EXISTS embedded,
      DROP COLUMN IF EXISTS upload_page_id;
  `);
}
