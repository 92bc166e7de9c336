/**
 * What a collaboration connection may do, answered by the policy module so the collab server
 * interprets no grants and no sessions itself. It asks on connect, at the expiry of the
 * credential that opened the connection, when the pond's access changes, and when the user's
 * sessions change; each time from the database, never from the token.
 *
 * - Who: an anonymous token speaks for the public; a signed-in token for its user only while
 *   the credential named in it lives (the session exists, is unexpired, and the account is not
 *   disabled; a deleted account takes its sessions with it). Personal access tokens are not
 *   issued yet, so a token naming one is refused.
 * - What: `ro` or `rw` on the page, never more than the token's mode (what the API granted
 *   when it issued it); nothing for a missing or trashed page or one the subject cannot read.
 */
import type { Sequelize } from 'sequelize';
import type { CollabMode, CollabTokenOrigin } from '../collab/collabToken.ts';
import { sessionIsLive } from '../auth/sessions.ts';
import { queryPrepared, type PreparedStatement } from '../db/preparedStatement.ts';
import type { User } from '../models/index.ts';
import { subjectAccessTo, type AccessSubject } from './accessPolicy.ts';
import { ANONYMOUS } from './grantResolution.ts';

export interface ConnectionSubject {
  subject: AccessSubject;
  /** The user's display name (what other editors see on the connection's caret); null for anonymous. */
  displayName: string | null;
  /** When the credential runs out as of now (a session's expiry slides: ask again then); null when it does not. */
  expiresAt: Date | null;
}

export type CollabAccess =
  | { allowed: true; mode: CollabMode; pondId: string; expiresAt: Date | null; displayName: string | null }
  | { allowed: false; reason: 'credential-ended' | 'no-access' };

export interface CollabAccessRequest {
  pageId: string;
  userId: string | null;
  origin: CollabTokenOrigin | null;
  /** The most the connection may get: the token's mode, or `rw` when checking for an upgrade. */
  ceiling: CollabMode;
}

/**
 * The page and the credential in one round trip, as a named prepared statement: this check is
 * on the path of every cold open (bench:collab (d)), where two ORM lookups cost more than the
 * rows they fetch. The subject: an anonymous token speaks for the public, a signed-in one for
 * its user while the session it names lives (see the header).
 */
const CONNECTION_LOOKUP: PreparedStatement = {
  name: 'collab_connection_lookup_v2',
  text: `SELECT p.id AS page_id, p.pond_id, p.trashed_at IS NOT NULL AS trashed,
                s.user_id AS session_user_id, s.expires_at, u.id AS user_id, u.status, u.is_site_admin, u.display_name
           FROM (VALUES (1)) AS one (x)
           LEFT JOIN pages p ON p.id = $1::uuid
           LEFT JOIN sessions s ON s.id = $2::text
           LEFT JOIN users u ON u.id = s.user_id`,
};

interface ConnectionLookupRow {
  page_id: string | null;
  pond_id: string | null;
  trashed: boolean | null;
  session_user_id: string | null;
  expires_at: Date | null;
  user_id: string | null;
  status: string | null;
  is_site_admin: boolean | null;
  display_name: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The subject a connection speaks for; null once the credential that opened it has ended. */
function subjectFromLookup(row: ConnectionLookupRow, request: CollabAccessRequest, now: number): ConnectionSubject | null {
  if (request.userId === null) return request.origin === null ? { subject: ANONYMOUS, displayName: null, expiresAt: null } : null;
  if (request.origin?.kind !== 'session') return null;
  if (row.user_id === null || row.expires_at === null || row.session_user_id !== request.userId) return null;
  if (!sessionIsLive({ expiresAt: row.expires_at }, { status: row.status as User['status'] }, now)) return null;
  return { subject: { userId: row.user_id, signedIn: true, isSiteAdmin: row.is_site_admin === true }, displayName: row.display_name, expiresAt: row.expires_at };
}

export async function resolveCollabAccess(sequelize: Sequelize, request: CollabAccessRequest): Promise<CollabAccess> {
  const sessionId = request.origin?.kind === 'session' ? request.origin.sessionId : null;
  const [row] = UUID.test(request.pageId) ? await queryPrepared<ConnectionLookupRow>(sequelize, CONNECTION_LOOKUP, [request.pageId, sessionId]) : [];
  const lookup: ConnectionLookupRow = row ?? { page_id: null, pond_id: null, trashed: null, session_user_id: null, expires_at: null, user_id: null, status: null, is_site_admin: null, display_name: null };
  const found = subjectFromLookup(lookup, request, Date.now());
  if (!found) return { allowed: false, reason: 'credential-ended' };
  // A trashed page is not opened at all: the editor shows the trash notice from the API instead.
  if (lookup.page_id === null || lookup.pond_id === null || lookup.trashed) return { allowed: false, reason: 'no-access' };
  const page = { id: lookup.page_id, pondId: lookup.pond_id, trashedAt: null };
  const { subject, displayName, expiresAt } = found;
  const access = await subjectAccessTo(sequelize, subject, page.pondId);
  if (!access || !access.page(page, 'read').allowed) return { allowed: false, reason: 'no-access' };
  const writable = subject.signedIn && request.ceiling === 'rw' && access.page(page, 'write').allowed;
  return { allowed: true, mode: writable ? 'rw' : 'ro', pondId: page.pondId, expiresAt, displayName };
}
