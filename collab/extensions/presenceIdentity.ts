/**
 * Presence shows who a connection is, not what its client claims: every awareness state a
 * connection sends is rebuilt before it is applied and passed on. Hocuspocus decodes the
 * update into a map for `beforeHandleAwareness`, and the update the other clients get is that
 * map re-encoded after the hook, so nothing a client sends reaches anyone unless it passes here.
 *
 * - `user`: for a signed-in connection, the user's id and display name (the policy module's
 *   lookup, at connect and every re-check; at most 100 characters). The colour the client
 *   picked is kept only when it is a `#rrggbb` colour and an index of our palette: other
 *   people's screens put them in a style value and a class name. An anonymous reader's
 *   `user` is `{ name: 'Visitor' }`, with no id (the editor shows "Besucher" / "Visitor").
 * - `cursor` (y-tiptap's selection) is kept when it is null or small; every other field is
 *   dropped.
 * - A connection speaks only for its own clients: a state for a client id that another
 *   connection announced is dropped (it would replace that person's presence), and one
 *   connection announces at most a few client ids (a provider has one per document).
 *
 * Updates not from a client connection (the server's own) pass as they are.
 */
import type { beforeHandleAwarenessPayload, Connection, Document, Extension } from '@hocuspocus/server';
import { PRESENCE_COLOURS } from '../../editor/src/editor/presenceColours.ts';
import type { ConnectionContext } from '../connectionContext.ts';

/** The name an anonymous reader's presence carries (editors translate it). */
export const VISITOR_NAME = 'Visitor';
export const MAX_PRESENCE_NAME_LENGTH = 100;
/** y-tiptap's cursor is two relative positions, about 150 bytes of JSON. */
const MAX_CURSOR_JSON_LENGTH = 1024;
const MAX_CLIENTS_PER_CONNECTION = 4;
const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

export interface PresenceUserState {
  id?: string;
  name: string;
  color?: string;
  colourIndex?: number;
}

type Who = Pick<ConnectionContext, 'userId' | 'displayName'>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `user` of a state from a connection of `who`: the identity is ours, the colour theirs if valid. */
export function boundPresenceUser(who: Who, announced: unknown): PresenceUserState {
  if (who.userId === null) return { name: VISITOR_NAME };
  // Cut by code points, so a cut never splits a character in two.
  const user: PresenceUserState = { id: who.userId, name: Array.from(who.displayName ?? '').slice(0, MAX_PRESENCE_NAME_LENGTH).join('') };
  const claimed = isRecord(announced) ? announced : {};
  if (typeof claimed.color === 'string' && HEX_COLOUR.test(claimed.color)) user.color = claimed.color;
  const index = claimed.colourIndex;
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < PRESENCE_COLOURS) user.colourIndex = index;
  return user;
}

/** The state passed on for one a connection of `who` announced. */
export function boundPresenceState(who: Who, announced: Record<string, unknown>): Record<string, unknown> {
  const state: Record<string, unknown> = { user: boundPresenceUser(who, announced.user) };
  const cursor = announced.cursor;
  if (cursor === null || (isRecord(cursor) && JSON.stringify(cursor).length <= MAX_CURSOR_JSON_LENGTH)) state.cursor = cursor;
  return state;
}

/** Client ids the document's other connections announced. */
function othersClients(document: Document, connection: Connection): Set<number> {
  const clients = new Set<number>();
  for (const other of document.getConnections()) {
    if (other === connection) continue;
    for (const clientId of document.getClients(other)) clients.add(clientId);
  }
  return clients;
}

export class CollabPresenceIdentity implements Extension {
  extensionName = 'dorfteich-presence-identity';

  async beforeHandleAwareness({ states, connection, document }: beforeHandleAwarenessPayload<ConnectionContext>): Promise<void> {
    if (!connection) return;
    const who = connection.context as ConnectionContext;
    const own = document.getClients(connection);
    const others = othersClients(document, connection);
    let announced = own.size;
    // Deleting or replacing entries while iterating a Map visits every entry once.
    for (const [clientId, state] of states) {
      if (others.has(clientId)) {
        states.delete(clientId);
        continue;
      }
      if (!own.has(clientId)) {
        if (announced >= MAX_CLIENTS_PER_CONNECTION) {
          states.delete(clientId);
          continue;
        }
        announced += 1;
      }
      states.set(clientId, boundPresenceState(who, state));
    }
  }
}
