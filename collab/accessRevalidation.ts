/**
 * On `pond_access_changed`, every live connection to a page of that pond is resolved again
 * through the policy module. A connection whose access is gone or whose mode changed has its
 * socket closed (not only the document): the provider reconnects within a second or two,
 * fetches a fresh token, and comes back with the mode it has now — or is refused.
 */
import type { Connection } from '@hocuspocus/server';
import type { CollabRuntime, ConnectionContext } from './collabExtension.ts';
import { resolveConnectionAccess } from './connectionAccess.ts';

/** Close code for "your access changed, reconnect": an application code, so the provider retries. */
export const ACCESS_CHANGED_CLOSE_CODE = 4003;

async function revalidateConnection(runtime: CollabRuntime, connection: Connection): Promise<void> {
  const context = connection.context as ConnectionContext;
  // Ask for the best mode the user could have now, so an upgrade also reconnects (and gets rw).
  const access = await resolveConnectionAccess(runtime.sequelize, context.pageId, context.userId, context.userId ? 'rw' : 'ro');
  if (access && access.mode === context.mode) return;
  runtime.logger.info({ pageId: context.pageId, userId: context.userId, from: context.mode, to: access?.mode ?? 'none' }, 'collab access changed: closing socket');
  connection.webSocket.close(ACCESS_CHANGED_CLOSE_CODE, 'access-changed');
}

async function revalidateDocuments(runtime: CollabRuntime, pageIds: string[]): Promise<void> {
  const checks: Promise<void>[] = [];
  for (const pageId of pageIds) {
    const document = runtime.hocuspocus?.documents.get(pageId);
    if (!document) continue;
    for (const connection of document.getConnections()) {
      checks.push(revalidateConnection(runtime, connection).catch((error) => runtime.logger.error({ err: (error as Error).message, pageId }, 'collab access revalidation failed')));
    }
  }
  await Promise.all(checks);
}

export async function revalidatePond(runtime: CollabRuntime, pondId: string): Promise<void> {
  const pageIds = [...runtime.documents.values()].filter((state) => state.pondId === pondId).map((state) => state.pageId);
  await revalidateDocuments(runtime, pageIds);
}

/** After the listener reconnected: notifications may have been missed, so check everyone. */
export async function revalidateAll(runtime: CollabRuntime): Promise<void> {
  await revalidateDocuments(runtime, [...runtime.documents.keys()]);
}
