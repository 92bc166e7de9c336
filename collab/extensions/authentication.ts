/**
 * Who may connect: the collab token from the API (signature, expiry, page), then access
 * through the policy module (api/policies/collabAccess.ts), which also checks that the
 * credential the token names still lives. Cannot read → refused; cannot write → read-only.
 * While access is checked, `prepare` may start work for the page that only pays off if the
 * check passes (the persistence extension loads a cold page); a refusal abandons that work.
 *
 * A refusal carries its reason to the provider and is no error: Hocuspocus logs a failing
 * hook on the console (with its message), so the thrown error has none.
 */
import { randomUUID } from 'node:crypto';
import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import type { Sequelize } from 'sequelize';
import { verifyCollabToken } from '../../api/collab/collabToken.ts';
import type { Logger } from '../../api/logger.ts';
import { resolveCollabAccess } from '../../api/policies/collabAccess.ts';
import type { ConnectionContext } from '../connectionContext.ts';
import { withDefaults } from './configuration.ts';

export interface AuthenticationConfiguration {
  sequelize: Sequelize;
  /** Signs collab tokens (the instance's session secret). */
  sessionSecret: string;
  logger: Logger;
  /** While true, every connection is refused (a backup restore runs). */
  paused: () => boolean;
  /** Access notices received so far (the revalidation extension counts them). */
  noticeCount: () => number;
  /** Started once the token is valid, while access is checked; `abandon` is called on a refusal. */
  prepare: (pageId: string, payload: onAuthenticatePayload) => PreparedWork;
}

/** Work started for a page while its access is checked. */
export interface PreparedWork {
  /** Joins the connection's context. */
  context: Partial<ConnectionContext>;
  abandon: () => void;
}

const DEFAULTS = {
  paused: () => false,
  noticeCount: () => 0,
  prepare: () => ({ context: {}, abandon: () => undefined }),
} satisfies Partial<AuthenticationConfiguration>;

/** Thrown from onAuthenticate: Hocuspocus answers "permission denied" with the reason and opens nothing. */
function refusal(reason: string): Error & { reason: string } {
  return Object.assign(new Error(), { reason });
}

export class CollabAuthentication implements Extension {
  extensionName = 'dorfteich-authentication';
  configuration: AuthenticationConfiguration;

  constructor(configuration: Omit<AuthenticationConfiguration, keyof typeof DEFAULTS> & Partial<AuthenticationConfiguration>) {
    this.configuration = withDefaults<AuthenticationConfiguration, typeof DEFAULTS>(DEFAULTS, configuration);
  }

  async onAuthenticate(payload: onAuthenticatePayload): Promise<ConnectionContext> {
    const { token, documentName, connectionConfig } = payload;
    const { logger } = this.configuration;
    if (this.configuration.paused()) throw refusal('maintenance');
    const claims = verifyCollabToken(this.configuration.sessionSecret, token);
    if (!claims || claims.pageId !== documentName) {
      logger.debug({ documentName }, 'collab connection refused: invalid token');
      throw refusal('invalid-token');
    }
    const noticesAtCheck = this.configuration.noticeCount();
    const prepared = this.configuration.prepare(claims.pageId, payload);
    const access = await resolveCollabAccess(this.configuration.sequelize, { pageId: claims.pageId, userId: claims.userId, origin: claims.origin, ceiling: claims.mode }).catch((error: unknown) => {
      prepared.abandon();
      throw error;
    });
    if (!access.allowed) {
      prepared.abandon();
      logger.debug({ pageId: claims.pageId, userId: claims.userId, reason: access.reason }, 'collab connection refused');
      throw refusal(access.reason === 'credential-ended' ? 'session-ended' : 'not-found');
    }
    connectionConfig.readOnly = access.mode === 'ro';
    return {
      ...prepared.context,
      pageId: claims.pageId,
      pondId: access.pondId,
      userId: claims.userId,
      origin: claims.origin,
      mode: access.mode,
      displayName: access.displayName,
      connectionId: randomUUID(),
      expiresAt: access.expiresAt,
      noticesAtCheck,
    } satisfies ConnectionContext;
  }
}
