/**
 * Every migration, in order. A migration changes schema only; data backfills are scripts.
 */
import type { Sequelize } from 'sequelize';
import * as foundation from './0001-foundation.ts';
import * as access from './0002-access.ts';
import * as tree from './0003-tree.ts';
import * as collab from './0004-collab.ts';
import * as search from './0005-search.ts';
import * as mailByJob from './0006-mail-by-job.ts';
import * as accountDeletion from './0007-account-deletion.ts';
import * as publicLayer from './0008-public-layer.ts';
import * as publicContentText from './0009-public-content-text.ts';
import * as commentsNotifications from './0010-comments-notifications.ts';
import * as apiTokens from './0011-api-tokens.ts';
import * as attachments from './0012-attachments.ts';
import * as searchSharpS from './0013-search-sharp-s.ts';
import * as maintenanceJobRuns from './0015-maintenance-job-runs.ts';
import * as userDirectorySearch from './0016-user-directory-search.ts';
import * as userDirectoryWalk from './0017-user-directory-walk.ts';
import * as loginIdentities from './0018-login-identities.ts';

export interface Migration {
  name: string;
  up(context: { sequelize: Sequelize }): Promise<void>;
  down(context: { sequelize: Sequelize }): Promise<void>;
}

export const migrations: Migration[] = [
  { name: '0001-foundation', ...foundation },
  { name: '0002-access', ...access },
  { name: '0003-tree', ...tree },
  { name: '0004-collab', ...collab },
  { name: '0005-search', ...search },
  { name: '0006-mail-by-job', ...mailByJob },
  { name: '0007-account-deletion', ...accountDeletion },
  { name: '0008-public-layer', ...publicLayer },
  { name: '0009-public-content-text', ...publicContentText },
  { name: '0010-comments-notifications', ...commentsNotifications },
  { name: '0011-api-tokens', ...apiTokens },
  { name: '0012-attachments', ...attachments },
  { name: '0013-search-sharp-s', ...searchSharpS },
  { name: '0015-maintenance-job-runs', ...maintenanceJobRuns },
  { name: '0016-user-directory-search', ...userDirectorySearch },
  { name: '0017-user-directory-walk', ...userDirectoryWalk },
  { name: '0018-login-identities', ...loginIdentities },
];
