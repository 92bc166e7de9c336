/**
 * Where a document comes from and where each client update goes: a page loads from its
 * update log (documentLoading.ts), and every update a client brings is written to the log
 * before its ack leaves (updateWriter.ts, durableAcks.ts). Rows the API appends (a version
 * restore) are applied to the live document when `page_updates_appended` announces them.
 *
 * Every client update reaches the document here, in `beforeSync`, where Hocuspocus would
 * apply it (updateCoalescer.ts hands updates on as stand-ins). An update Yjs cannot read is
 * answered as Hocuspocus answers a failing message (the document connection is closed,
 * nothing of it acknowledged), but as the client's fault it is: a warning, no error, no stack.
 *
 * Each connection also holds a `collab_sessions` row (sessionRegistry.ts) while it is open:
 * log compaction leaves pages with a live row alone.
 */
import type {
  afterLoadDocumentPayload,
  afterUnloadDocumentPayload,
  beforeSyncPayload,
  Connection,
  connectedPayload,
  Extension,
  Hocuspocus,
  onConfigurePayload,
  onDisconnectPayload,
  onAuthenticatePayload,
  onLoadDocumentPayload,
} from '@hocuspocus/server';
import type pg from 'pg';
import * as Y from 'yjs';
import { loadPageUpdates } from '../../api/documents/documentLog.ts';
import { queueCompactionAfterSession } from '../../api/documents/logCompaction.ts';
import type { Logger } from '../../api/logger.ts';
import type { ConnectionContext } from '../connectionContext.ts';
import type { DocumentLoader } from '../documentLoading.ts';
import type { PreparedWork } from './authentication.ts';
import { holdAckUntil, installAckGate, withholdAcks } from '../durableAcks.ts';
import type { SessionRegistry } from '../sessionRegistry.ts';
import { applyBurst, burstOf, SYNC_UPDATE } from '../updateCoalescer.ts';
import type { UpdateWriter } from '../updateWriter.ts';

/** Transaction origin of updates read from the log: they are already stored. */
export const LOG_ORIGIN = Symbol('page log');

/** Reason sent with the close of a document connection that sent an update Yjs cannot read. */
export const INVALID_UPDATE_REASON = 'invalid-update';

export interface LoadedDocument {
  pageId: string;
  /** Highest log id read at load; later rows come from this process or from the API. */
  loadedLastId: number;
  loading: boolean;
  /** A `page_updates_appended` arrived while loading: read the log again afterwards. */
  appendedWhileLoading: boolean;
  /** Someone's edits were written to the log since the load: the log grew, so it may be worth merging when everyone has left. */
  edited: boolean;
}

export interface PersistenceConfiguration {
  pool: pg.Pool;
  loader: DocumentLoader;
  writer: UpdateWriter;
  sessions: SessionRegistry;
  logger: Logger;
}

export class CollabPersistence implements Extension {
  extensionName = 'dorfteich-persistence';
  configuration: PersistenceConfiguration;
  /** The documents loaded (or loading) here, by page id. */
  readonly documents = new Map<string, LoadedDocument>();
  private instance: Hocuspocus | null = null;
  /** Connections that sent an update Yjs could not read: nothing more of theirs is applied. */
  private readonly refused = new WeakSet<Connection>();

  constructor(configuration: PersistenceConfiguration) {
    this.configuration = { ...configuration };
  }

  async onConfigure({ instance }: onConfigurePayload): Promise<void> {
    this.instance = instance;
  }

  /**
   * For the authentication extension: a page nobody has open starts loading (its log read and
   * applied) while access is checked, once the token is known to be ours. Nothing of it is sent
   * before the check passes; after a refusal the document is unloaded again unless someone else
   * connected to it meanwhile. The connection's own setup later finds the load under way.
   */
  prepare(pageId: string, payload: onAuthenticatePayload): PreparedWork {
    const instance = this.instance;
    if (!instance || instance.documents.has(pageId) || instance.loadingDocuments.has(pageId)) return { context: {}, abandon: () => undefined };
    const context = { logRead: this.configuration.loader.startRead(pageId) };
    const loading = instance.createDocument(pageId, payload.request, payload.socketId, payload.connectionConfig, context);
    // A failed load is the connection's to report: its setup loads again and fails in its own hooks.
    loading.catch(() => undefined);
    return {
      context: {},
      abandon: () => {
        loading.then((document) => instance.unloadDocument(document)).catch(() => undefined);
      },
    };
  }

  /** Call for every `page_updates_appended` notice (payload: the page id). */
  noticeAppended(pageId: string): void {
    this.configuration.loader.noticeAppended();
    this.applyAppendedUpdates(pageId).catch((error) => this.configuration.logger.error({ err: (error as Error).message, pageId }, 'applying appended updates failed'));
  }

  async onLoadDocument({ document, documentName, context }: onLoadDocumentPayload<ConnectionContext>): Promise<void> {
    const state: LoadedDocument = { pageId: documentName, loadedLastId: 0, loading: true, appendedWhileLoading: false, edited: false };
    this.documents.set(documentName, state);
    const logRead = context.logRead;
    delete context.logRead;
    state.loadedLastId = await this.configuration.loader.load(document, documentName, logRead, LOG_ORIGIN);
    if (state.appendedWhileLoading) {
      for (const row of await loadPageUpdates(this.configuration.pool, documentName, state.loadedLastId)) Y.applyUpdate(document, row.update, LOG_ORIGIN);
    }
    state.loading = false;
  }

  async afterLoadDocument({ document }: afterLoadDocumentPayload): Promise<void> {
    const pageId = document.name;
    // The document's state lives as long as the document: looked up once, not per keystroke.
    const state = this.documents.get(pageId);
    // Fires inside Y.applyUpdate, before Hocuspocus sends the ack, with only what was new.
    document.on('update', (update: Uint8Array, origin: unknown) => {
      const connection = (origin as { source?: string; connection?: Connection } | null)?.connection;
      if ((origin as { source?: string } | null)?.source !== 'connection' || !connection) return;
      const write = this.configuration.writer.enqueue(pageId, update, (connection.context as ConnectionContext).userId);
      if (state) state.edited = true;
      holdAckUntil(connection, write);
    });
  }

  // Every connection's acks go through the gate, also one that never brings an update of its own.
  // A stand-in's updates (updateCoalescer.ts) are applied here, where Hocuspocus would apply a
  // single one, and acknowledged once per message.
  async beforeSync({ connection, type, payload }: beforeSyncPayload<ConnectionContext>): Promise<void> {
    const burst = burstOf(payload);
    installAckGate(connection, type, burst?.length ?? 1);
    if (!burst || type !== SYNC_UPDATE || connection.readOnly || this.refused.has(connection)) return;
    try {
      applyBurst(connection, burst);
    } catch (error) {
      this.refuse(connection, error as Error);
    }
  }

  async connected({ context }: connectedPayload<ConnectionContext>): Promise<void> {
    // This connection's log read, if the document came from elsewhere: not needed any more.
    delete context.logRead;
    const { connectionId, pageId, userId, mode } = context;
    await this.configuration.sessions
      .open({ id: connectionId, pageId, userId, mode })
      .catch((error) => this.configuration.logger.warn({ err: (error as Error).message }, 'could not record collab session'));
  }

  async onDisconnect({ context }: onDisconnectPayload<ConnectionContext>): Promise<void> {
    if (context.connectionId) await this.configuration.sessions.close(context.connectionId).catch(() => undefined);
  }

  async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload): Promise<void> {
    const state = this.documents.get(documentName);
    if (state && !state.loading) this.documents.delete(documentName);
    // Its last participant has left after editing: the worker merges a long log shortly, so the
    // next cold open reads one row (logCompaction.ts). A page that was only read kept its log.
    if (!state?.edited) return;
    await queueCompactionAfterSession(this.configuration.pool, documentName).catch((error) =>
      this.configuration.logger.warn({ err: (error as Error).message, pageId: documentName }, 'could not queue the update-log compaction'),
    );
  }

  /**
   * An update Yjs cannot read: what came before it in the burst is applied (and stored, and
   * not acknowledged: the client sends it again when it reconnects), the rest is not.
   */
  private refuse(connection: Connection, error: Error): void {
    this.refused.add(connection);
    withholdAcks(connection);
    const { pageId, userId } = connection.context as ConnectionContext;
    this.configuration.logger.warn({ pageId, userId, err: error.message }, 'collab client sent an unreadable update: document connection closed');
    connection.close({ code: 1007, reason: INVALID_UPDATE_REASON } as CloseEvent);
  }

  private async applyAppendedUpdates(pageId: string): Promise<void> {
    const state = this.documents.get(pageId);
    if (!state) return;
    if (state.loading) {
      state.appendedWhileLoading = true;
      return;
    }
    const document = this.instance?.documents.get(pageId);
    if (!document) return;
    // Rows this process wrote are among them; applying an update twice changes nothing.
    const rows = await loadPageUpdates(this.configuration.pool, pageId, state.loadedLastId);
    Y.transact(document, () => {
      for (const row of rows) Y.applyUpdate(document, row.update, LOG_ORIGIN);
    }, LOG_ORIGIN);
  }
}
