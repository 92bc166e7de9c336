/**
 * Collaboration tests: the pond cast (a real API instance, four users) plus a real collab
 * server on a free port that the instance proxies `/collab` to, and real
 * `@hocuspocus/provider` clients that fetch their token from the API as the editor does.
 */
import { after, before } from 'node:test';
import { HocuspocusProvider } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { createLogger } from '../../api/logger.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { usePondCast, type PondCast } from '../../api/testing/pondTestSetup.ts';
import { waitFor } from '../../api/testing/polling.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startCollabServer, type CollabServer, type CollabServerOptions } from '../collabServer.ts';
import { paragraphText } from './paragraphText.ts';

export interface CollabCast extends PondCast {
  collab: CollabServer;
  /** The public `/collab` URL (through the API's proxy). */
  wsUrl: string;
  /** Starts the collab server again (after a test stopped it). */
  restartCollab(): Promise<void>;
  /** Editors opened and not yet destroyed: destroyed before the servers stop. */
  openEditors: Set<TestEditor>;
}

export type CollabOptions = Partial<Pick<CollabServerOptions, 'storeDebounceMs' | 'snapshotActiveMs' | 'maintenanceFailsafeMs' | 'heartbeatIntervalMs'>>;

export function useCollabCast(options: CollabOptions = {}): CollabCast {
  let port = 0;
  const openEditors = new Set<TestEditor>();
  // Registered before the instance's own teardown, so it runs first: a provider left open by a
  // failed test reconnects forever and holds the instance's proxied socket, and closing the
  // servers then waits for it without end.
  after(() => {
    for (const editor of [...openEditors]) editor.destroy();
  });
  const cast = usePondCast(async () => {
    port = await freePort();
    return { env: { COLLAB_PORT: String(port) } };
  }) as CollabCast;
  cast.openEditors = openEditors;
  const start = async () => {
    const { config, sequelize } = cast.instance.services;
    cast.collab = await startCollabServer({
      databaseUrl: config.databaseUrl!,
      sequelize,
      sessionSecret: config.sessionSecret,
      logger: createLogger(process.env.DT_TEST_LOG_LEVEL ?? 'silent', 'collab'),
      port,
      storeDebounceMs: options.storeDebounceMs ?? 50,
      ...options,
    });
    cast.wsUrl = `${cast.instance.baseUrl.replace(/^http/, 'ws')}/collab`;
  };
  cast.restartCollab = start;
  before(start);
  after(() => cast.collab.close());
  return cast;
}

export interface TestEditor {
  provider: HocuspocusProvider;
  ydoc: Y.Doc;
  /** The document's text: all paragraphs, one per line. */
  text(): string;
  /** Appends text to the first paragraph (created when missing). */
  type(text: string): void;
  /** What happened to the connection after it first synced (`closedAt`: when it first closed, ms since the epoch). */
  seen: { closed: boolean; refused: boolean; closedAt: number | null };
  /** Resolves once every local change is acknowledged by the server. */
  allSynced(): Promise<void>;
  destroy(): void;
}

/** Fetches a collab token for `pageId` as `client`; throws with the response on failure. */
export async function collabToken(client: TestClient, pageId: string): Promise<string> {
  const response = await client.get(`/pages/${pageId}/collab-token`);
  if (response.status !== 200) throw Object.assign(new Error(`collab-token ${response.status}`), { response });
  return response.body.token as string;
}

// The collab tests' poll helper is everyone's (api/testing/polling.ts).
export { paragraphText, waitFor };

export interface EditorOptions {
  url?: string;
  /** Where the provider gets its token (on every connect); by default from the API as `client`. */
  token?: () => Promise<string>;
}

/** A provider as the editor island would open it; resolves once authenticated and synced. */
export async function openEditor(cast: CollabCast, client: TestClient, pageId: string, options: EditorOptions = {}): Promise<TestEditor> {
  const ydoc = new Y.Doc();
  const provider = new HocuspocusProvider({
    url: options.url ?? cast.wsUrl,
    name: pageId,
    document: ydoc,
    token: options.token ?? (() => collabToken(client, pageId)),
  });
  const synced = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('provider did not sync within 10 s')), 10_000);
    provider.on('synced', () => {
      clearTimeout(timer);
      resolve();
    });
    provider.on('authenticationFailed', ({ reason }: { reason: string }) => {
      clearTimeout(timer);
      reject(new Error(`authentication failed: ${reason}`));
    });
  });
  // A provider that never synced would otherwise retry in the background for the rest of the file.
  await synced.catch((error: unknown) => {
    provider.destroy();
    throw error;
  });
  const seen: TestEditor['seen'] = { closed: false, refused: false, closedAt: null };
  provider.on('close', () => {
    seen.closed = true;
    seen.closedAt ??= Date.now();
  });
  provider.on('authenticationFailed', () => {
    seen.refused = true;
  });
  const paragraph = () => {
    const fragment = ydoc.getXmlFragment('default');
    let first = fragment.get(0);
    if (!(first instanceof Y.XmlElement)) {
      first = new Y.XmlElement('paragraph');
      fragment.insert(0, [first]);
    }
    const element = first as Y.XmlElement;
    let text = element.get(0);
    if (!(text instanceof Y.XmlText)) {
      text = new Y.XmlText();
      element.insert(0, [text]);
    }
    return text as Y.XmlText;
  };
  const editor: TestEditor = {
    provider,
    ydoc,
    seen,
    text: () => paragraphText(ydoc),
    type(text: string) {
      ydoc.transact(() => {
        const target = paragraph();
        target.insert(target.length, text);
      });
    },
    allSynced: async () => {
      await waitFor(() => provider.synced && provider.unsyncedChanges === 0, 10_000, 'the provider to have no unsynced changes');
    },
    destroy() {
      cast.openEditors?.delete(editor);
      provider.destroy();
    },
  };
  cast.openEditors?.add(editor);
  return editor;
}

/** Editors opened in a test, destroyed together (`t.after(editors.closeAll)`). */
export function editorPool(cast: CollabCast) {
  const editors: TestEditor[] = [];
  return {
    open: async (client: TestClient, pageId: string, options?: EditorOptions) => {
      const editor = await openEditor(cast, client, pageId, options);
      editors.push(editor);
      return editor;
    },
    closeAll: () => {
      for (const editor of editors.splice(0)) editor.destroy();
    },
  };
}
