/** `GET /ponds/:pondSlug/export.zip`: the pond as a flat ZIP of Markdown files (spec: Public REST API). */
import { ZIP_MEDIA_TYPE } from '../../exports/pondMarkdownZip.ts';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { apiCallOf } from '../apiCall.ts';
import { streamApiPondExport } from '../operations/exportOperations.ts';
import { pondSlugParams } from './pondApiRoutes.ts';

export const exportApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/export.zip',
    access: { kind: 'token', scope: 'read' },
    params: pondSlugParams,
    describe: {
      summary: 'Export the pond as Markdown',
      description:
        'A ZIP archive, flat: one `<slug>.md` per live page the token owner may read, each opening with YAML front matter (title, slug, parent, labels, updated). The hierarchy is named in the front matter only.',
      tag: 'Export',
      response: { status: 200, schema: null, mediaType: ZIP_MEDIA_TYPE, description: 'The archive (`Content-Disposition: attachment; filename="<pondSlug>-markdown.zip"`)' },
    },
    // The route answers by streaming; nothing is left to send afterwards.
    handler: async (context) => {
      await streamApiPondExport(apiCallOf(context), context.params.pondSlug, context.res);
    },
  }),
];
