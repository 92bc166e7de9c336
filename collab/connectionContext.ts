/**
 * What a connection carries from authentication on (Hocuspocus `context`), read by every
 * extension of the collab server.
 */
import type { CollabMode, CollabTokenOrigin } from '../api/collab/collabToken.ts';
import type { LogRead } from './documentLoading.ts';

export interface ConnectionContext {
  pageId: string;
  pondId: string;
  /** Null for an anonymous reader of a public page. */
  userId: string | null;
  /** The credential that opened the connection (collabToken.ts); null for anonymous readers. */
  origin: CollabTokenOrigin | null;
  mode: CollabMode;
  /** The signed-in user's display name as of the last check (their caret's name); null for anonymous readers. */
  displayName: string | null;
  /** This connection's `collab_sessions` row. */
  connectionId: string;
  /** When the credential runs out as of the last check; the connection is checked again then. */
  expiresAt: Date | null;
  /** Access notices received when access was checked (a notice during the check means: check again). */
  noticesAtCheck: number;
  /** The log read started while this connection was checked; taken by the load, if it loads the page. */
  logRead?: LogRead;
}
