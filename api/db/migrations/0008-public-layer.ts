/**
 * The generated public layer (issue 16): stored public documents with their compressed
 * variants, the dependency index that finds the documents a change affects, the queue the
 * worker drains to regenerate them, the transclusion targets the content pipeline extracts,
 * and per-user feed tokens.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    -- One row per generated document. The path is the lowercased human URL the hot path looks
    -- up ('/', '/legal/imprint', '/<pond>', '/<pond>/<page>'); the bytes are identical for
    -- every reader, so one row serves everybody.
    CREATE TABLE public_documents (
      path text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('page', 'pond', 'home', 'legal')),
      pond_id uuid REFERENCES ponds (id) ON DELETE CASCADE,
      page_id uuid REFERENCES pages (id) ON DELETE CASCADE,
      html bytea NOT NULL,
      gzip bytea NOT NULL,
      brotli bytea NOT NULL,
      markdown text,
      content jsonb,
      etag text NOT NULL,
      last_modified timestamptz NOT NULL,
      generated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CHECK ((kind = 'page') = (page_id IS NOT NULL)),
      CHECK ((kind IN ('page', 'pond')) = (pond_id IS NOT NULL))
    );
    CREATE UNIQUE INDEX public_documents_page_key ON public_documents (page_id) WHERE page_id IS NOT NULL;
    CREATE UNIQUE INDEX public_documents_pond_index_key ON public_documents (pond_id) WHERE kind = 'pond';
    CREATE INDEX public_documents_pond_idx ON public_documents (pond_id);

    -- Which pages a page's document shows (ancestors in the breadcrumbs, children, backlink
    -- sources, transcluded targets at every level): a change to one of them regenerates it.
    CREATE TABLE public_document_dependencies (
      page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      depends_on uuid NOT NULL,
      -- Shown to the public in the document: losing public read makes the document stale at once.
      shown boolean NOT NULL DEFAULT true,
      PRIMARY KEY (page_id, depends_on)
    );
    CREATE INDEX public_document_dependencies_target_idx ON public_document_dependencies (depends_on);

    -- Work for the generation job, written in the transaction of the change and drained by the
    -- worker. page_id NULL with a pond_id: every document of the pond; both NULL: the site's
    -- own documents (landing and legal pages).
    CREATE TABLE public_document_queue (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      pond_id uuid,
      page_id uuid,
      -- The page's title, slug or place in the tree changed: the pond index shows it too.
      tree_changed boolean NOT NULL DEFAULT false,
      requested_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );

    -- The transclusion targets of a page's document, by slug as written (lowercased), so a
    -- page that appears under a slug finds the documents that transclude it.
    CREATE TABLE page_transclusions (
      source_page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
      pond_id uuid NOT NULL REFERENCES ponds (id) ON DELETE CASCADE,
      target_slug text NOT NULL,
      PRIMARY KEY (source_page_id, target_slug)
    );
    CREATE INDEX page_transclusions_target_idx ON page_transclusions (pond_id, target_slug);

    -- One feed token per user: only the SHA-256 of the secret is kept.
    CREATE TABLE feed_tokens (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz
    );
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    DROP TABLE IF EXISTS feed_tokens;
    DROP TABLE IF EXISTS page_transclusions;
    DROP TABLE IF EXISTS public_document_queue;
    DROP TABLE IF EXISTS public_document_dependencies;
    DROP TABLE IF EXISTS public_documents;
  `);
}
