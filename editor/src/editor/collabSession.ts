/**
 * The page's Yjs document with its two homes: the collaboration server (through
 * `@hocuspocus/provider`, `/collab` on this origin) and this browser (IndexedDB through
 * `y-indexeddb`), so text typed offline survives a reload and syncs on reconnect.
 *
 * The token is a function: the provider calls it on every (re)connect, so a connection the
 * server closed because access changed (4003) comes back with a fresh token, and its mode
 * (`rw` / `ro`) tells the editor whether it may still edit.
 */
import { HocuspocusProvider } from '@hocuspocus/provider';
import { IndexeddbPersistence } from 'y-indexeddb';
import * as Y from 'yjs';
import { YJS_FRAGMENT_NAME } from '../../../content-pipeline/browser.ts';
import { ApiRequestError, callApi } from '../api/apiClient.ts';
import { INITIAL_FACTS, type ConnectionFacts, type SocketStatus } from './connectionState.ts';
import { CLOSE_OFFLINE_COPIES_EVENT, offlineCopyName } from './offlineCopies.ts';

/** How long a refused or failed authentication waits before the provider tries again. */
const AUTH_RETRY_MS = 5_000;

interface CollabTokenAnswer {
  token: string;
  mode: 'rw' | 'ro';
  path: string;
}

export interface CollabSession {
  ydoc: Y.Doc;
  provider: HocuspocusProvider;
  /** Resolves once the browser's copy is loaded: whether it holds any content. */
  localCopy: Promise<boolean>;
  facts(): ConnectionFacts;
  destroy(): void;
}

export function collabUrl(location: Location, path = '/collab'): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${path}`;
}

/**
 * Whether a refused token request means the session has ended (signed out elsewhere, the
 * account disabled or deleted). A page that is not public answers a caller without a session
 * 404, as it answers anyone it hides from, so the session itself is asked.
 */
async function sessionHasEnded(refusal: ApiRequestError): Promise<boolean> {
  if (refusal.status === 401) return true;
  try {
    await callApi('GET', '/users/me');
    return false;
  } catch (error) {
    return error instanceof ApiRequestError && error.status === 401;
  }
}

/** `onFacts` hears every change of what the status line is derived from. */
export function openCollabSession(pageId: string, onFacts: (facts: ConnectionFacts) => void): CollabSession {
  const ydoc = new Y.Doc();
  let facts: ConnectionFacts = { ...INITIAL_FACTS, online: navigator.onLine };
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let destroyed = false;
  const update = (change: Partial<ConnectionFacts>) => {
    facts = { ...facts, ...change };
    if (!destroyed) onFacts(facts);
  };

  const local = new IndexeddbPersistence(offlineCopyName(pageId), ydoc);
  // Signing out deletes the copies (offlineCopies.ts): stop writing this one first.
  const closeLocal = () => void local.destroy();
  window.addEventListener(CLOSE_OFFLINE_COPIES_EVENT, closeLocal);
  const localCopy = local.whenSynced.then(() => ydoc.getXmlFragment(YJS_FRAGMENT_NAME).length > 0).catch(() => false);

  async function fetchToken(): Promise<string> {
    try {
      const answer = await callApi<CollabTokenAnswer>('GET', `/pages/${encodeURIComponent(pageId)}/collab-token`);
      update({ mode: answer.mode, refused: null });
      return answer.token;
    } catch (error) {
      // The page gone or no longer readable, or the session ended: say which. Anything else
      // (network, 5xx) is retried quietly.
      if (error instanceof ApiRequestError && [401, 403, 404, 410].includes(error.status)) update({ refused: (await sessionHasEnded(error)) ? 'sessionEnded' : 'noAccess' });
      throw error;
    }
  }

  const provider = new HocuspocusProvider({
    url: collabUrl(window.location),
    name: pageId,
    document: ydoc,
    token: fetchToken,
  });
  provider.on('status', ({ status }: { status: SocketStatus }) => {
    update({ socket: status, everConnected: facts.everConnected || status === 'connected', synced: status === 'connected' ? facts.synced : false });
  });
  provider.on('synced', ({ state }: { state: boolean }) => update({ synced: state }));
  provider.on('unsyncedChanges', ({ number }: { number: number }) => update({ unsynced: number }));
  provider.on('authenticated', ({ scope }: { scope: 'readonly' | 'read-write' }) => update({ mode: scope === 'readonly' ? 'ro' : 'rw', refused: null }));
  // After a failed authentication the provider waits on an open socket; start over later, so
  // a passing failure (or access granted again) does not leave the page stuck.
  provider.on('authenticationFailed', () => {
    if (retryTimer || destroyed) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (destroyed) return;
      provider.disconnect();
      void provider.connect();
    }, AUTH_RETRY_MS);
  });

  const online = () => update({ online: true });
  const offline = () => update({ online: false });
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);

  return {
    ydoc,
    provider,
    localCopy,
    facts: () => facts,
    destroy() {
      destroyed = true;
      if (retryTimer) clearTimeout(retryTimer);
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      window.removeEventListener(CLOSE_OFFLINE_COPIES_EVENT, closeLocal);
      provider.destroy();
      void local.destroy();
      ydoc.destroy();
    },
  };
}
