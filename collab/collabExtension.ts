/**
 * The Hocuspocus hooks: who connects (token + policy), where a document comes from (the
 * log), where each applied update goes (the log, before the ack), what a store does (derived
 * data), and when a version is taken (last participant leaves, 30 active-editing minutes).
 */
import { randomUUID } from 'node:crypto';
import type { Connection, Document, Extension, Hocuspocus } from '@hocuspocus/server';
import type pg from 'pg';
import type { Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { yDocToDocument } from '../content-pipeline/index.ts';
import { verifyCollabToken, type CollabMode } from '../api/collab/collabToken.ts';
import { saveDerivedData } from '../api/documents/derivedData.ts';
import { loadDocumentState, loadPageUpdates } from '../api/documents/documentLog.ts';
import { createVersion } from '../api/documents/versions.ts';
import type { Logger } from '../api/logger.ts';
import { resolveConnectionAccess } from './connectionAccess.ts';
import type { DocumentLoader, LogRead } from './documentLoading.ts';
import { documentWritten, holdAckUntil, installAckGate } from './durableAcks.ts';
import { applyBurst, burstOf, SYNC_UPDATE } from './updateCoalescer.ts';
import type { MaintenanceGate } from './maintenanceGate.ts';
import type { SessionRegistry } from './sessionRegistry.ts';
import type { UpdateWriter } from './updateWriter.ts';

/** Transaction origin of updates read from the log: they are already stored. */
export const LOG_ORIGIN = Symbol('page log');
/** Gaps between edits up to this long count as active editing time. */
const ACTIVE_EDITING_GAP_MS = 60_000;

/** What a connection carries from authentication on (Hocuspocus `context`). */
export interface ConnectionContext {
  pageId: string;
  pondId: string;
  userId: string | null;
  mode: CollabMode;
  sessionId: string;
  /** The log read started while this connection was checked; taken by the load, if it loads the page. */
  logRead?: LogRead;
}

export interface DocumentState {
  pageId: string;
  pondId: string;
  /** Highest log id read at load; later rows come from this process or from the API. */
  loadedLastId: number;
  loading: boolean;
  /** An `page_updates_appended` arrived while loading: read the log again afterwards. */
  appendedWhileLoading: boolean;
  /** Users whose edits the next store renders (the mention notifications name them as authors). */
  authorsSinceStore: Set<string>;
  editedSinceVersion: boolean;
  activeMs: number;
  lastEditAt: number;
}

export interface CollabRuntime {
  pool: pg.Pool;
  sequelize: Sequelize;
  sessionSecret: string;
  logger: Logger;
  writer: UpdateWriter;
  loader: DocumentLoader;
  sessions: SessionRegistry;
  maintenance: MaintenanceGate;
  documents: Map<string, DocumentState>;
  snapshotActiveMs: number;
  hocuspocus?: Hocuspocus;
  applyAppendedUpdates?: (pageId: string) => Promise<void>;
}

/** Thrown from onAuthenticate: Hocuspocus answers "permission denied" and opens nothing. */
function denied(reason: string): Error & { reason: string } {
  return Object.assign(new Error(reason), { reason });
}

export function createCollabExtension(runtime: CollabRuntime): Extension {
  const { logger } = runtime;

  const takeVersion = async (document: Document, state: DocumentState) => {
    state.editedSinceVersion = false;
    state.activeMs = 0;
    await documentWritten(document);
    await createVersion(runtime.pool, { pageId: state.pageId, trigger: 'auto', state: Y.encodeStateAsUpdate(document) });
  };

  const recordEdit = (document: Document, state: DocumentState, connection: Connection, update: Uint8Array) => {
    const context = connection.context as ConnectionContext;
    const write = runtime.writer.enqueue(state.pageId, update, context.userId);
    holdAckUntil(connection, write);
    if (context.userId) state.authorsSinceStore.add(context.userId);
    const now = Date.now();
    if (state.lastEditAt > 0) state.activeMs += Math.min(now - state.lastEditAt, ACTIVE_EDITING_GAP_MS);
    state.lastEditAt = now;
    state.editedSinceVersion = true;
    if (state.activeMs >= runtime.snapshotActiveMs) {
      takeVersion(document, state).catch((error) => logger.error({ err: (error as Error).message, pageId: state.pageId }, 'automatic version failed'));
    }
  };

  // Pages whose participants all vanished with a crashed instance: take the version their
  // leaving would have taken, from the log, if anyone edited since the last one.
  runtime.sessions.onAbandoned = async (pageIds) => {
    for (const pageId of pageIds) {
      if (runtime.documents.has(pageId)) continue; // open here: the live document takes it on leave
      const { rows } = await runtime.pool.query(`SELECT 1 FROM page_contributors WHERE page_id = $1 LIMIT 1`, [pageId]);
      if (rows.length === 0) continue;
      const { state } = await loadDocumentState(runtime.pool, pageId);
      await createVersion(runtime.pool, { pageId, trigger: 'auto', state });
    }
  };

  runtime.applyAppendedUpdates = async (pageId: string) => {
    const state = runtime.documents.get(pageId);
    if (!state) return;
    if (state.loading) {
      state.appendedWhileLoading = true;
      return;
    }
    const document = runtime.hocuspocus?.documents.get(pageId);
    if (!document) return;
    // Rows this process wrote are among them; applying an update twice changes nothing.
    const rows = await loadPageUpdates(runtime.pool, pageId, state.loadedLastId);
    Y.transact(document, () => {
      for (const row of rows) Y.applyUpdate(document, row.update, LOG_ORIGIN);
    }, LOG_ORIGIN);
  };

  return {
    extensionName: 'dorfteich',

    async onAuthenticate({ token, documentName, connectionConfig }) {
      if (runtime.maintenance.active) throw denied('maintenance');
      const claims = verifyCollabToken(runtime.sessionSecret, token);
      if (!claims || claims.pageId !== documentName) throw denied('invalid-token');
      // A cold page: read its log while access is checked (nothing read leaves before the check passes).
      const logRead = runtime.hocuspocus?.documents.has(claims.pageId) ? undefined : runtime.loader.startRead(claims.pageId);
      const access = await resolveConnectionAccess(runtime.sequelize, claims.pageId, claims.userId, claims.mode);
      if (!access) throw denied('not-found');
      connectionConfig.readOnly = access.mode === 'ro';
      return {
        pageId: claims.pageId,
        pondId: access.pondId,
        userId: claims.userId,
        mode: access.mode,
        sessionId: randomUUID(),
        logRead,
      } satisfies ConnectionContext;
    },

    async onLoadDocument({ document, documentName, context }) {
      const state: DocumentState = {
        pageId: documentName,
        pondId: (context as ConnectionContext).pondId,
        loadedLastId: 0,
        loading: true,
        appendedWhileLoading: false,
        authorsSinceStore: new Set(),
        editedSinceVersion: false,
        activeMs: 0,
        lastEditAt: 0,
      };
      runtime.documents.set(documentName, state);
      const connectionContext = context as ConnectionContext;
      const logRead = connectionContext.logRead;
      delete connectionContext.logRead;
      state.loadedLastId = await runtime.loader.load(document, documentName, logRead, LOG_ORIGIN);
      if (state.appendedWhileLoading) {
        for (const row of await loadPageUpdates(runtime.pool, documentName, state.loadedLastId)) Y.applyUpdate(document, row.update, LOG_ORIGIN);
      }
      state.loading = false;
    },

    async afterLoadDocument({ document, documentName }) {
      const state = runtime.documents.get(documentName);
      if (!state) return;
      // Fires inside Y.applyUpdate, before Hocuspocus sends the ack, with only what was new.
      document.on('update', (update: Uint8Array, origin: unknown) => {
        const connection = (origin as { source?: string; connection?: Connection } | null)?.connection;
        if ((origin as { source?: string } | null)?.source !== 'connection' || !connection) return;
        recordEdit(document, state, connection, update);
      });
    },

    // Every connection's acks go through the gate, also one that never brings an update of its own.
    // A burst's stand-in (updateCoalescer.ts): its updates are applied here, where Hocuspocus
    // would apply a single one, and acknowledged once per message.
    async beforeSync({ connection, type, payload }) {
      const burst = burstOf(payload);
      installAckGate(connection, type, burst?.length ?? 1);
      if (burst && type === SYNC_UPDATE && !connection.readOnly) applyBurst(connection, burst);
    },

    async connected({ context }) {
      // This connection's log read, if the document came from elsewhere: not needed any more.
      delete (context as ConnectionContext).logRead;
      const { sessionId, pageId, userId, mode } = context as ConnectionContext;
      await runtime.sessions.open({ id: sessionId, pageId, userId, mode }).catch((error) => logger.warn({ err: (error as Error).message }, 'could not record collab session'));
    },

    async onStoreDocument({ document, documentName }) {
      const state = runtime.documents.get(documentName);
      const authorIds = state ? [...state.authorsSinceStore] : [];
      state?.authorsSinceStore.clear();
      try {
        // The caches never run ahead of the log (this page's writes; other pages' don't matter).
        await documentWritten(document);
        await saveDerivedData(runtime.sequelize, { pageId: documentName, document: yDocToDocument(document), authorIds });
      } catch (error) {
        logger.error({ err: (error as Error).message, pageId: documentName }, 'rendering the saved page failed');
      }
    },

    async onDisconnect({ document, documentName, context }) {
      const { sessionId } = context as ConnectionContext;
      if (sessionId) await runtime.sessions.close(sessionId).catch(() => undefined);
      const state = runtime.documents.get(documentName);
      if (!state || document.getConnectionsCount() > 0 || !state.editedSinceVersion) return;
      await takeVersion(document, state).catch((error) => logger.error({ err: (error as Error).message, pageId: documentName }, 'automatic version failed'));
    },

    async afterUnloadDocument({ documentName }) {
      const state = runtime.documents.get(documentName);
      if (state && !state.loading) runtime.documents.delete(documentName);
    },
  };
}
