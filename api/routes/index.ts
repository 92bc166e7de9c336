/** Every internal API route (`/api/v1`), one table per resource family. */
import type { AnyRoute } from '../http/routeTable.ts';
import { adminSettingsRoutes } from './adminSettingsRoutes.ts';
import { adminSiteRoutes } from './adminSiteRoutes.ts';
import { adminUserRoutes } from './adminUserRoutes.ts';
import { authAccountRoutes } from './authAccountRoutes.ts';
import { authSessionRoutes } from './authSessionRoutes.ts';
import { favoriteRoutes } from './favoriteRoutes.ts';
import { feedRoutes } from './feedRoutes.ts';
import { feedTokenRoutes } from './feedTokenRoutes.ts';
import { apiTokenRoutes } from './apiTokenRoutes.ts';
import { healthRoutes } from './healthRoutes.ts';
import { homeRoutes } from './homeRoutes.ts';
import { legalRoutes } from './legalRoutes.ts';
import { publicReadRoutes } from './publicReadRoutes.ts';
import { linkRoutes } from './linkRoutes.ts';
import { mediaRoutes } from './mediaRoutes.ts';
import { grantRoutes } from './grantRoutes.ts';
import { labelRoutes } from './labelRoutes.ts';
import { memberRoutes } from './memberRoutes.ts';
import { pageRoutes } from './pageRoutes.ts';
import { pageScreenRoutes } from './pageScreenRoutes.ts';
import { pageTreeRoutes } from './pageTreeRoutes.ts';
import { collabRoutes } from './collabRoutes.ts';
import { pondRoutes } from './pondRoutes.ts';
import { searchRoutes } from './searchRoutes.ts';
import { setupRoutes } from './setupRoutes.ts';
import { userRoutes } from './userRoutes.ts';
import { versionRoutes } from './versionRoutes.ts';
import { commentRoutes } from './commentRoutes.ts';
import { watchRoutes } from './watchRoutes.ts';
import { notificationRoutes } from './notificationRoutes.ts';
import { unsubscribeRoutes } from './unsubscribeRoutes.ts';
import { adminJobRoutes } from './adminJobRoutes.ts';
import { exportRoutes } from './exportRoutes.ts';
import { fileRoutes } from './fileRoutes.ts';
import { adminAuditRoutes } from './adminAuditRoutes.ts';
import { adminSystemRoutes } from './adminSystemRoutes.ts';
import { adminQuotaRoutes } from './adminQuotaRoutes.ts';
import { ssoRoutes } from './ssoRoutes.ts';

export const internalApiRoutes: AnyRoute[] = [
  // For page renders in this process only; first, so no pattern of another route takes its path.
  ...pageScreenRoutes,
  ...healthRoutes,
  // Before any `/public/:pondSlug/:pageSlug` route, which would take `feed.xml` for a page slug.
  ...feedRoutes,
  ...legalRoutes,
  ...publicReadRoutes,
  ...homeRoutes,
  ...setupRoutes,
  ...authSessionRoutes,
  ...authAccountRoutes,
  ...ssoRoutes,
  ...userRoutes,
  ...feedTokenRoutes,
  ...apiTokenRoutes,
  ...pondRoutes,
  ...memberRoutes,
  ...grantRoutes,
  ...labelRoutes,
  ...pageRoutes,
  ...pageTreeRoutes,
  ...versionRoutes,
  ...fileRoutes,
  ...commentRoutes,
  ...watchRoutes,
  ...notificationRoutes,
  ...unsubscribeRoutes,
  ...collabRoutes,
  ...favoriteRoutes,
  ...linkRoutes,
  ...mediaRoutes,
  ...searchRoutes,
  ...adminSettingsRoutes,
  ...adminSiteRoutes,
  ...adminUserRoutes,
  ...adminJobRoutes,
  ...exportRoutes,
  ...adminAuditRoutes,
  ...adminSystemRoutes,
  ...adminQuotaRoutes,
];
