/**
 * Binds every model to this process's connection. Called once per process.
 */
import type { Sequelize } from 'sequelize';
import { AuditEntry } from './auditEntry.ts';
import { EmailToken } from './emailToken.ts';
import { Grant } from './grant.ts';
import { Label } from './label.ts';
import { MailOutboxEntry } from './mailOutboxEntry.ts';
import { Page } from './page.ts';
import { PageLabel } from './pageLabel.ts';
import { Pond } from './pond.ts';
import { QuotaOverride } from './quotaOverride.ts';
import { Session } from './session.ts';
import { Setting } from './setting.ts';
import { User } from './user.ts';

export function initModels(sequelize: Sequelize): void {
  for (const model of [User, Session, EmailToken, Setting, AuditEntry, MailOutboxEntry, Pond, Grant, Page, Label, PageLabel, QuotaOverride]) {
    model.initModel(sequelize);
  }
  Session.belongsTo(User, { foreignKey: 'userId', as: 'user' });
}

export { AuditEntry, EmailToken, Grant, Label, MailOutboxEntry, Page, PageLabel, Pond, QuotaOverride, Session, Setting, User };
export type { EmailTokenPurpose } from './emailToken.ts';
export type { GrantEffect, GrantScopeType, GrantSubjectType, PondRole } from './grant.ts';
export type { MailStatus } from './mailOutboxEntry.ts';
export type { PondKind } from './pond.ts';
export type { QuotaName } from './quotaOverride.ts';
export type { DigestFrequency, UserStatus } from './user.ts';
