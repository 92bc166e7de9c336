/**
 * When a version is taken by itself: when the last participant leaves a page edited since its
 * last version, and every `activeMs` of active editing (spec: 30 minutes; gaps between edits
 * up to `activeGapMs` count as active). Pages whose participants all vanished with a crashed
 * instance get the version their leaving would have taken, from the log
 * (`versionAbandonedPages`, called by the session registry's reaper).
 *
 * Each such version notifies the page's watchers (`page_changed`, its contributors as the
 * actors) once it is written; a failed notification is logged and leaves the version be.
 */
import type { Document, Extension, onChangePayload, onDisconnectPayload } from '@hocuspocus/server';
import type pg from 'pg';
import type { Sequelize } from 'sequelize';
import * as Y from 'yjs';
import { loadDocumentState } from '../../api/documents/documentLog.ts';
import { createVersion } from '../../api/documents/versions.ts';
import type { Logger } from '../../api/logger.ts';
import { notifyAutomaticVersion } from '../../api/notifications/eventNotifications.ts';
import { documentWritten } from '../durableAcks.ts';
import { withDefaults } from './configuration.ts';

export interface AutomaticVersionsConfiguration {
  pool: pg.Pool;
  /** For the watchers' notification of each version (bound to the models). */
  sequelize: Sequelize;
  logger: Logger;
  /** Active editing time between automatic versions. */
  activeMs: number;
  /** Gaps between edits up to this long count as active editing time. */
  activeGapMs: number;
  /** Whether the page is open (or opening) in this process: its own leave takes the version then. */
  isOpenHere: (pageId: string) => boolean;
}

const DEFAULTS = { activeMs: 30 * 60_000, activeGapMs: 60_000, isOpenHere: () => false } satisfies Partial<AutomaticVersionsConfiguration>;

interface EditingTime {
  editedSinceVersion: boolean;
  activeMs: number;
  lastEditAt: number;
}

export class CollabAutomaticVersions implements Extension {
  extensionName = 'dorfteich-automatic-versions';
  configuration: AutomaticVersionsConfiguration;
  private readonly editing = new WeakMap<Document, EditingTime>();

  constructor(configuration: Omit<AutomaticVersionsConfiguration, keyof typeof DEFAULTS> & Partial<AutomaticVersionsConfiguration>) {
    this.configuration = withDefaults<AutomaticVersionsConfiguration, typeof DEFAULTS>(DEFAULTS, configuration);
  }

  async onChange({ document, connection }: onChangePayload): Promise<void> {
    if (!connection) return;
    let time = this.editing.get(document);
    if (!time) this.editing.set(document, (time = { editedSinceVersion: false, activeMs: 0, lastEditAt: 0 }));
    const now = Date.now();
    if (time.lastEditAt > 0) time.activeMs += Math.min(now - time.lastEditAt, this.configuration.activeGapMs);
    time.lastEditAt = now;
    time.editedSinceVersion = true;
    if (time.activeMs >= this.configuration.activeMs) this.takeVersion(document, time).catch((error) => this.failed(error, document.name));
  }

  async onDisconnect({ document, documentName }: onDisconnectPayload): Promise<void> {
    const time = this.editing.get(document);
    if (!time || document.getConnectionsCount() > 0 || !time.editedSinceVersion) return;
    await this.takeVersion(document, time).catch((error) => this.failed(error, documentName));
  }

  /** Pages left without a live session by a crashed instance: their version from the log, if anyone edited since the last one. */
  async versionAbandonedPages(pageIds: readonly string[]): Promise<void> {
    const { pool } = this.configuration;
    for (const pageId of pageIds) {
      if (this.configuration.isOpenHere(pageId)) continue;
      const { rows } = await pool.query(`SELECT 1 FROM page_contributors WHERE page_id = $1 LIMIT 1`, [pageId]);
      if (rows.length === 0) continue;
      const { state } = await loadDocumentState(pool, pageId);
      const version = await createVersion(pool, { pageId, trigger: 'auto', state });
      await this.notifyWatchers(version.id, pageId);
    }
  }

  private async takeVersion(document: Document, time: EditingTime): Promise<void> {
    time.editedSinceVersion = false;
    time.activeMs = 0;
    await documentWritten(document);
    const version = await createVersion(this.configuration.pool, { pageId: document.name, trigger: 'auto', state: Y.encodeStateAsUpdate(document) });
    await this.notifyWatchers(version.id, document.name);
  }

  private async notifyWatchers(versionId: string, pageId: string): Promise<void> {
    try {
      await notifyAutomaticVersion(this.configuration.sequelize, versionId);
    } catch (error) {
      this.configuration.logger.error({ err: (error as Error).message, pageId, versionId }, 'notifying the watchers of an automatic version failed');
    }
  }

  private failed(error: unknown, pageId: string): void {
    this.configuration.logger.error({ err: (error as Error).message, pageId }, 'automatic version failed');
  }
}
