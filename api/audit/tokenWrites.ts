/**
 * `api.write` (spec: Authentication 3, Audit actions): every write made with a personal access
 * token, REST or MCP, names the token. Recorded once the write has succeeded, by the one place
 * each channel runs its writes through (the route table for REST, the tool wrapper for MCP),
 * so no write route can forget it. The write's own transaction belongs to its command, so the
 * entry follows it instead of sharing it: a crash between both can lose an entry, never
 * record a write that did not happen.
 */
import type { Actor } from '../auth/authenticateRequest.ts';
import { auditActorOf, recordAudit } from './auditLog.ts';

export interface TokenWriteDetails {
  channel: 'rest' | 'mcp';
  /** REST: the method and the route pattern with its parameters; MCP: the tool and its target. */
  [detail: string]: unknown;
}

export async function recordTokenWrite(actor: Actor, details: TokenWriteDetails, ip: string | undefined): Promise<void> {
  if (!actor.token) return;
  await recordAudit({
    actor: auditActorOf(actor.user),
    action: 'api.write',
    details: { tokenId: actor.token.id, tokenName: actor.token.name, ...details },
    ip,
  });
}
