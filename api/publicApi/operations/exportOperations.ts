/**
 * The Markdown ZIP export of a pond for the public REST API (`GET /ponds/:pondSlug/export.zip`)
 * and MCP's `export_pond`, which hands out the REST URL instead of the archive (spec: MCP
 * endpoint). The archive is the internal export's (api/exports/pondMarkdownZip.ts): flat, one
 * `<slug>.md` per live page the token's owner may read.
 */
import type { Response } from 'express';
import { streamPondMarkdownZip } from '../../exports/pondMarkdownZip.ts';
import { publicBaseUrl } from '../../feeds/feedUrls.ts';
import { ApiError } from '../../http/apiError.ts';
import { getSetting } from '../../settings/instanceSettings.ts';
import { pondNotFound, pondOptedIn, resolveApiPond, type ApiCall } from '../apiCall.ts';

// Where publicApiRouter.ts mounts the API. Not imported from there: the router imports the
// route tables, which import this module, and the cycle would leave one side undefined to
// whichever module is loaded first.
const PUBLIC_API_PATH = '/api/public/v1';

/** Streams the pond's archive to `res` once the pond is resolved (its refusals answer as JSON, before any byte). */
export async function streamApiPondExport(call: ApiCall, pondSlug: string, res: Response): Promise<void> {
  const { pond } = await resolveApiPond(call, pondSlug);
  await streamPondMarkdownZip(call.services, call.subject, pond, res);
}

/**
 * The absolute URL of the pond's archive, for a client holding the same token (MCP
 * `export_pond`). The pond is resolved first, and the REST switches (instance and pond) are
 * checked, so a pond the token cannot export answers the refusal here rather than a link that
 * would fail.
 */
export async function exportApiUrl(call: ApiCall, pondSlug: string): Promise<string> {
  const { pond } = await resolveApiPond(call, pondSlug);
  // The link is a REST route: what its download would refuse for the REST switches is refused now.
  if (!(await getSetting('api.enabled'))) throw new ApiError('api_disabled', 404);
  if (!pondOptedIn(pond, 'rest')) throw pondNotFound(pondSlug);
  return `${await publicBaseUrl(call.services)}${PUBLIC_API_PATH}/ponds/${encodeURIComponent(pond.slug)}/export.zip`;
}
