/**
 * The database side of the collab bench and soak: the scratch database of benchDatabase.ts
 * (its URL feeds the collab server's pool and LISTEN connections; `durable` gives fsync on,
 * as in production, for the write-path figures), plus a seeded pond: users with a session each,
 * pages, editor grants.
 */
import { generateNKeysBetween } from 'fractional-indexing';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { CollabTokenOrigin } from '../../api/collab/collabToken.ts';

/** The bench database of the collaboration bench and soak: the shared one. */
export { openBenchDatabase as openCollabDatabase, type BenchDatabase as CollabDatabase } from './benchDatabase.ts';

export interface SeededPond {
  pondId: string;
  /** Editors of the pond (the first one owns it). */
  userIds: string[];
  pageIds: string[];
  /** Each user's session, as a collab token names it (the server checks that it lives). */
  origins: Map<string, CollabTokenOrigin>;
}

let pondCounter = 0;

/** A shared pond with `users` editors (the first is its admin) and `pages` top-level pages. */
export async function seedCollabPond(sequelize: Sequelize, options: { users: number; pages: number; label?: string }): Promise<SeededPond> {
  pondCounter += 1;
  const label = options.label ?? `p${pondCounter}`;
  const select = <T extends object>(sql: string, bind: unknown[] = []) => sequelize.query<T>(sql, { bind, type: QueryTypes.SELECT });
  const users = await select<{ id: string }>(
    `INSERT INTO users (username, email, display_name, status, password_hash)
     SELECT $1 || '-u' || n, $1 || '-u' || n || '@example.org', 'User ' || n, 'ACTIVE', 'x' FROM generate_series(1, $2::int) AS n
     RETURNING id`,
    [label, options.users],
  );
  const userIds = users.map((user) => user.id);
  const sessions = await select<{ id: string; user_id: string }>(
    `INSERT INTO sessions (id, user_id, secret_hash, expires_at)
     SELECT gen_random_uuid()::text, u.id, sha256(gen_random_uuid()::text::bytea), now() + interval '30 days' FROM unnest($1::uuid[]) AS u (id)
     RETURNING id, user_id`,
    [userIds],
  );
  const origins = new Map(sessions.map((session) => [session.user_id, { kind: 'session', sessionId: session.id } as const]));
  const [pond] = await select<{ id: string }>(`INSERT INTO ponds (slug, name, kind, owner_id) VALUES ($1, $1, 'shared', $2) RETURNING id`, [`pond-${label}`, userIds[0]]);
  const pondId = pond!.id;
  await sequelize.query(
    `INSERT INTO grants (pond_id, subject_type, subject_user_id, role, scope_type, effect)
     SELECT $1, 'user', u.id, CASE WHEN u.id = $2 THEN 'pond_admin' ELSE 'editor' END, 'pond', 'allow' FROM unnest($3::uuid[]) AS u (id)`,
    { bind: [pondId, userIds[0], userIds] },
  );
  const positions = generateNKeysBetween(null, null, options.pages);
  const pages = await select<{ id: string }>(
    `INSERT INTO pages (pond_id, slug, title, position, created_by, updated_by)
     SELECT $1, $2 || '-page-' || t.n, 'Page ' || t.n, t.position, $3, $3 FROM unnest($4::text[]) WITH ORDINALITY AS t (position, n)
     RETURNING id`,
    [pondId, label, userIds[0], positions],
  );
  return { pondId, userIds, pageIds: pages.map((page) => page.id), origins };
}
