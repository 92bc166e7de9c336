/**
 * Appends to the audit log. Call it inside the transaction of the change it records, so an
 * entry exists exactly when the change does.
 */
import type { Transaction } from 'sequelize';
import { storableJson, storableText } from '../http/inputText.ts';
import { AuditEntry } from '../models/index.ts';
import type { AuditAction } from './auditActions.ts';

export interface AuditActor {
  id: string | null;
  name: string | null;
}

/** The audit actor for an account: its id, and its username as it was at the time. */
export function auditActorOf(user: { id: string; username: string }): AuditActor {
  return { id: user.id, name: user.username };
}

export interface AuditRecord {
  actor: AuditActor | null;
  /** One of the catalogue's (auditActions.ts, docs/audit.md). */
  action: AuditAction;
  details?: Record<string, unknown>;
  ip?: string | null | undefined;
}

export async function recordAudit(record: AuditRecord, transaction?: Transaction): Promise<void> {
  await AuditEntry.create(
    {
      actorId: record.actor?.id ?? null,
      actorName: record.actor?.name === undefined || record.actor.name === null ? null : storableText(record.actor.name),
      action: record.action,
      // Details may quote what a refused request sent (a failed login's name): never a reason to fail the request.
      details: storableJson(record.details ?? {}) as Record<string, unknown>,
      ip: record.ip ?? null,
    },
    { transaction },
  );
}
