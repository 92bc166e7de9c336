/** Every public REST route (`/api/public/v1`), one table per resource family; the OpenAPI document lists exactly these. */
import type { AnyRoute } from '../http/routeTable.ts';
import { commentApiRoutes } from './routes/commentApiRoutes.ts';
import { exportApiRoutes } from './routes/exportApiRoutes.ts';
import { labelApiRoutes } from './routes/labelApiRoutes.ts';
import { meRoutes } from './routes/meRoutes.ts';
import { openApiRoutes } from './routes/openApiRoutes.ts';
import { pageApiRoutes } from './routes/pageApiRoutes.ts';
import { pondApiRoutes } from './routes/pondApiRoutes.ts';
import { searchApiRoutes } from './routes/searchApiRoutes.ts';

/** Served whatever the instance switch says (publicApiRouter.ts). */
export const OPEN_API_PATH = '/openapi.json';

export const publicApiRoutes: AnyRoute[] = [...meRoutes, ...pondApiRoutes, ...pageApiRoutes, ...searchApiRoutes, ...labelApiRoutes, ...commentApiRoutes, ...exportApiRoutes, ...openApiRoutes];
