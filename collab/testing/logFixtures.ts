/** Rows for tests of the update log on a bare pool (no API instance): a user, a pond, a page. */
import type pg from 'pg';

export async function seedLogPage(pool: pg.Pool): Promise<{ pageId: string; userId: string }> {
  const { rows: users } = await pool.query<{ id: string }>(
    `INSERT INTO users (id, username, email, display_name, password_hash, status, created_at, updated_at)
       VALUES (gen_random_uuid(), 'u' || floor(random() * 1e9), 'u' || floor(random() * 1e9) || '@example.org', 'Writer', NULL, 'ACTIVE', now(), now()) RETURNING id`,
  );
  const { rows: ponds } = await pool.query<{ id: string }>(
    `INSERT INTO ponds (id, slug, name, kind) VALUES (gen_random_uuid(), 'p' || floor(random() * 1e9), 'Pond', 'shared') RETURNING id`,
  );
  const { rows: pages } = await pool.query<{ id: string }>(
    `INSERT INTO pages (id, pond_id, slug, title, position, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'page', 'Page', 'a0', now(), now()) RETURNING id`,
    [ponds[0]!.id],
  );
  return { pageId: pages[0]!.id, userId: users[0]!.id };
}
