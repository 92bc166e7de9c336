/**
 * The system panel's manual job trigger (ARCHITECTURE.md: `POST /admin/system/jobs/:name/run`,
 * Site Admins only): queues a run of a maintenance job now, under the run-mutex, audited as
 * `admin.job_run` (api/commands/maintenanceJobRuns.ts). 202 `{ name, jobId }`: the worker runs
 * it within seconds; 404 `job_not_found` for an unknown name or a job not built yet, 409
 * `job_already_running` while a run is under way or about to start.
 */
import { z } from 'zod';
import { auditActorOf } from '../audit/auditLog.ts';
import { triggerMaintenanceJob } from '../commands/maintenanceJobRuns.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

export const adminJobRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/admin/system/jobs/:name/run',
    access: { kind: 'siteAdmin' },
    params: z.object({ name: z.string().max(100) }),
    handler: async ({ params, actor, req, services }) => {
      const run = await triggerMaintenanceJob(services.sequelize, { name: params.name, actor: auditActorOf(actor.user), ip: req.ip });
      return { status: 202, body: run };
    },
  }),
];
