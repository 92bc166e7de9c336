/**
 * One call of the public REST API or of an MCP tool, and the steps of the spec's enforcement
 * order that follow the token: the instance switch, the bearer token, its rate limit and the
 * scope have passed (bearerAuthentication.ts, the route table's `token` rule, the MCP tool
 * wrapper); what remains is the pond's opt-in for the channel and the token's pond
 * restriction, then the normal permission model, unchanged (the policy module).
 *
 * A pond the token cannot reach answers 404 whatever the reason (missing, unreadable, switched
 * off, restricted), one body for all, so a token learns nothing of ponds it may not use.
 */
import type { Actor } from '../auth/authenticateRequest.ts';
import { recordTokenWrite } from '../audit/tokenWrites.ts';
import { ApiError, notFound, withMessageVariant } from '../http/apiError.ts';
import type { RouteContext } from '../http/routeTable.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Page, Pond } from '../models/index.ts';
import { findLivePond, findReadablePage } from '../pages/slugLookup.ts';
import { accessSubjectOf, pondVisible, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';
import { withSettingDefaults } from '../ponds/pondSettings.ts';
import type { AppServices } from '../services.ts';

export type ApiChannel = 'rest' | 'mcp';

export interface ApiCall {
  services: AppServices;
  /** The token's owner, with the token (`actor.token`) set. */
  actor: Actor;
  subject: AccessSubject;
  channel: ApiChannel;
  locale: () => Promise<Locale>;
  ip: string | undefined;
}

/** A REST handler's call (its route's `token` rule guarantees the token). */
export function apiCallOf(context: Pick<RouteContext<unknown, unknown, unknown, Actor>, 'services' | 'actor' | 'locale' | 'req'>): ApiCall {
  return { services: context.services, actor: context.actor, subject: accessSubjectOf(context.actor), channel: 'rest', locale: context.locale, ip: context.req.ip };
}

/** Whether the pond opted in to the call's channel (its `apiEnabled` or `mcpEnabled` setting). */
export function pondOptedIn(pond: Pond, channel: ApiChannel): boolean {
  const settings = withSettingDefaults(pond.settings);
  return channel === 'rest' ? settings.apiEnabled : settings.mcpEnabled;
}

/** Whether the token may reach the pond at all: opted in and within its pond restriction. */
export function tokenReachesPond(call: ApiCall, pond: Pond): boolean {
  return pondOptedIn(pond, call.channel) && (call.actor.token?.pondId ?? pond.id) === pond.id;
}

/**
 * The one answer for a pond named by slug that the call cannot reach, whatever the reason:
 * missing, unreadable, not opted in to the channel, outside the token's restriction (spec:
 * an unreadable pond gives 404, existence hidden). `details.pond` is the slug as sent, so the
 * body says nothing the caller did not already know; the message lists what to check. The code
 * is the plain `not_found` a missing pond has always answered, so clients keep working.
 */
export const pondNotFound = (pondSlug: string) => withMessageVariant('pond_unreachable', { pond: pondSlug });

/** The live pond a call names by slug, opted in to the channel and within the token's restriction; else `pondNotFound`. */
export async function resolveApiPond(call: ApiCall, pondSlug: string): Promise<{ pond: Pond; access: SubjectAccess }> {
  const found = await findLivePond(call.services.sequelize, call.subject, pondSlug).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === 'not_found') return null;
    throw error;
  });
  if (!found || !pondVisible(found.access) || !tokenReachesPond(call, found.pond)) throw pondNotFound(pondSlug);
  return found;
}

/**
 * The same steps for a pond reached through something named by id (a comment): the caller
 * named no pond, so an unreachable one answers as that thing missing would, 404 `not_found`.
 */
export function assertPondReachable(call: ApiCall, pond: Pond, access: SubjectAccess): SubjectAccess {
  if (!pondVisible(access) || !tokenReachesPond(call, pond)) throw notFound();
  return access;
}

/**
 * A live page by its pond's and its own slug, with `capability`: 404 when unreadable (or
 * trashed: the public API works on live pages), 403 `forbidden` for a write on a readable page.
 */
export async function resolveApiPage(call: ApiCall, pondSlug: string, pageSlug: string, capability: 'read' | 'write'): Promise<{ pond: Pond; page: Page; access: SubjectAccess }> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  const page = await findReadablePage(pond, access, pageSlug);
  if (capability === 'write' && !access.page(page, 'write').allowed) throw new ApiError('forbidden', 403);
  return { pond, page, access };
}

/** MCP write tools: a read-scope token is refused before anything is looked up (the REST rule does the same). */
export function requireWriteScope(call: ApiCall): void {
  if (call.actor.token?.scope !== 'write') throw new ApiError('scope_required', 403);
}

/** MCP write tools, after success (REST writes are recorded by the route table). */
export async function auditApiWrite(call: ApiCall, details: Record<string, unknown>): Promise<void> {
  await recordTokenWrite(call.actor, { channel: call.channel, ...details }, call.ip);
}
