/**
 * Exports for the app: the Markdown ZIP of a pond (api/exports/pondMarkdownZip.ts). Whoever
 * sees the pond may download it and gets the pages they may read; signed-in callers only, as
 * an export is a bulk copy (the public REST API offers the same ZIP to token holders).
 */
import { streamPondMarkdownZip } from '../exports/pondMarkdownZip.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

export const exportRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:id/export/markdown',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ resource, subject, services, res }) => {
      await streamPondMarkdownZip(services, subject, resource.pond, res);
    },
  }),
];
