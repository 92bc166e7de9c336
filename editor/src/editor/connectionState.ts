/**
 * What the editor's status line says, derived from what the provider and the browser report.
 * Pure, so the order of the rules (which fact wins when several hold) is tested on its own.
 */

/** The provider's socket, as its `status` event names it. */
export type SocketStatus = 'connecting' | 'connected' | 'disconnected';

export interface ConnectionFacts {
  socket: SocketStatus;
  /** The socket was open at least once in this page's life (a later drop is a reconnect). */
  everConnected: boolean;
  /** The provider finished its sync with the server (reset while the socket is down). */
  synced: boolean;
  /** Local changes the server has not acknowledged yet. */
  unsynced: number;
  /** `navigator.onLine` and the window's online/offline events. */
  online: boolean;
  /** The mode of the newest collab token (or the server's answer to it). */
  mode: 'rw' | 'ro' | null;
  /**
   * The last token request was refused, and why: the session has ended (signed out elsewhere,
   * the account disabled or deleted) or the page is gone or no longer readable.
   */
  refused: 'sessionEnded' | 'noAccess' | null;
}

export type ConnectionState = 'connecting' | 'saved' | 'saving' | 'reconnecting' | 'offline' | 'readOnly' | 'noAccess' | 'sessionEnded';

export const INITIAL_FACTS: ConnectionFacts = { socket: 'connecting', everConnected: false, synced: false, unsynced: 0, online: true, mode: null, refused: null };

export function connectionState(facts: ConnectionFacts): ConnectionState {
  if (facts.refused) return facts.refused;
  if (!facts.online) return 'offline';
  if (facts.socket !== 'connected') return facts.everConnected ? 'reconnecting' : 'connecting';
  if (!facts.synced && facts.unsynced === 0) return facts.everConnected && facts.mode !== null ? 'reconnecting' : 'connecting';
  if (facts.mode === 'ro') return 'readOnly';
  return facts.unsynced > 0 ? 'saving' : 'saved';
}

/** Whether leaving the page now would leave changes only in this browser. */
export function hasUnsavedChanges(facts: ConnectionFacts): boolean {
  return facts.unsynced > 0 && facts.mode !== 'ro';
}
