/**
 * Access is not settled once: a live connection is resolved again through the policy module
 *
 * - on `pond_access_changed`: every connection to a page of that pond;
 * - on `user_sessions_changed`: every connection of that user (logout, password reset or
 *   change, a disabled or deleted account end sessions; api/auth/sessions.ts announces it;
 *   granting or revoking Site Admin announces it too, api/commands/managedAccounts.ts);
 * - at the expiry of the credential that opened it (a timer; sessions slide, so the row is
 *   read again and the timer moved when the session was extended);
 * - for everyone, after the notification listener reconnected (notices may have been missed).
 *
 * A connection whose access is gone or whose mode changed has its socket closed (not only the
 * document): the provider reconnects within a second or two, fetches a fresh token, and comes
 * back with what it may do now, or is refused. A notice that arrives while a connection is
 * still being set up is caught in `connected`: it checks again if any came since its check.
 */
import type { connectedPayload, Connection, Extension, Hocuspocus, onConfigurePayload, onDisconnectPayload } from '@hocuspocus/server';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../../api/logger.ts';
import { resolveCollabAccess } from '../../api/policies/collabAccess.ts';
import type { ConnectionContext } from '../connectionContext.ts';
import { withDefaults } from './configuration.ts';

/** Close code for "your access changed, reconnect": an application code, so the provider retries. */
export const ACCESS_CHANGED_CLOSE_CODE = 4003;
/** Close code for "the session that opened this ended": the provider retries and is refused, or comes back anonymous. */
export const SESSION_ENDED_CLOSE_CODE = 4001;

export interface AccessRevalidationConfiguration {
  sequelize: Sequelize;
  logger: Logger;
  /** The longest a single timer waits (Node's limit is 24.8 days); a longer wait re-arms. */
  maxTimerMs: number;
}

const DEFAULTS = { maxTimerMs: 24 * 3_600_000 } satisfies Partial<AccessRevalidationConfiguration>;

export class CollabAccessRevalidation implements Extension {
  extensionName = 'dorfteich-access-revalidation';
  configuration: AccessRevalidationConfiguration;
  /** Pond, user and resync notices received so far (see `connected`). */
  notices = 0;
  private instance: Hocuspocus | null = null;
  /** Expiry timers, by connection id. */
  private readonly expiryTimers = new Map<string, NodeJS.Timeout>();

  constructor(configuration: Omit<AccessRevalidationConfiguration, keyof typeof DEFAULTS> & Partial<AccessRevalidationConfiguration>) {
    this.configuration = withDefaults<AccessRevalidationConfiguration, typeof DEFAULTS>(DEFAULTS, configuration);
  }

  async onConfigure({ instance }: onConfigurePayload): Promise<void> {
    this.instance = instance;
  }

  async connected({ connection, context }: connectedPayload<ConnectionContext>): Promise<void> {
    if (this.notices !== context.noticesAtCheck) await this.revalidate(connection);
    else this.armExpiryTimer(connection);
  }

  async onDisconnect({ context }: onDisconnectPayload<ConnectionContext>): Promise<void> {
    this.clearExpiryTimer(context.connectionId);
  }

  /** `pond_access_changed`. */
  async revalidatePond(pondId: string): Promise<void> {
    this.notices += 1;
    await this.revalidateWhere((context) => context.pondId === pondId);
  }

  /** `user_sessions_changed`. */
  async revalidateUser(userId: string): Promise<void> {
    this.notices += 1;
    await this.revalidateWhere((context) => context.userId === userId);
  }

  /** After the listener reconnected: notifications may have been missed, so check everyone. */
  async revalidateAll(): Promise<void> {
    this.notices += 1;
    await this.revalidateWhere(() => true);
  }

  /** Stops every timer (the server is closing). */
  stop(): void {
    for (const timer of this.expiryTimers.values()) clearTimeout(timer);
    this.expiryTimers.clear();
  }

  private async revalidateWhere(matches: (context: ConnectionContext) => boolean): Promise<void> {
    const checks: Promise<void>[] = [];
    for (const document of this.instance?.documents.values() ?? []) {
      for (const connection of document.getConnections()) {
        if (matches(connection.context as ConnectionContext)) checks.push(this.revalidate(connection));
      }
    }
    await Promise.all(checks);
  }

  private async revalidate(connection: Connection): Promise<void> {
    const context = connection.context as ConnectionContext;
    try {
      // Ask for the best mode the user could have now, so an upgrade also reconnects (and gets rw).
      const access = await resolveCollabAccess(this.configuration.sequelize, { pageId: context.pageId, userId: context.userId, origin: context.origin, ceiling: context.userId ? 'rw' : 'ro' });
      if (access.allowed && access.mode === context.mode) {
        context.expiresAt = access.expiresAt;
        // A renamed user's caret shows the new name from their next awareness update on.
        context.displayName = access.displayName;
        this.armExpiryTimer(connection);
        return;
      }
      this.clearExpiryTimer(context.connectionId);
      const ended = !access.allowed && access.reason === 'credential-ended';
      this.configuration.logger.info(
        { pageId: context.pageId, userId: context.userId, from: context.mode, to: access.allowed ? access.mode : 'none', reason: access.allowed ? 'mode-changed' : access.reason },
        ended ? 'collab session ended: closing socket' : 'collab access changed: closing socket',
      );
      connection.webSocket.close(ended ? SESSION_ENDED_CLOSE_CODE : ACCESS_CHANGED_CLOSE_CODE, ended ? 'session-ended' : 'access-changed');
    } catch (error) {
      this.configuration.logger.error({ err: (error as Error).message, pageId: context.pageId }, 'collab access revalidation failed');
    }
  }

  /** Checks the connection again when its credential runs out (a connection without one has no timer). */
  private armExpiryTimer(connection: Connection): void {
    const context = connection.context as ConnectionContext;
    this.clearExpiryTimer(context.connectionId);
    // A connection that left while it was being checked keeps no timer (and no reference to it).
    if (!context.expiresAt || !connection.document.hasConnection(connection)) return;
    const wait = Math.min(Math.max(context.expiresAt.getTime() - Date.now(), 0), this.configuration.maxTimerMs);
    const timer = setTimeout(() => {
      this.expiryTimers.delete(context.connectionId);
      void this.revalidate(connection);
    }, wait);
    timer.unref();
    this.expiryTimers.set(context.connectionId, timer);
  }

  private clearExpiryTimer(connectionId: string): void {
    const timer = this.expiryTimers.get(connectionId);
    if (timer) clearTimeout(timer);
    this.expiryTimers.delete(connectionId);
  }
}
