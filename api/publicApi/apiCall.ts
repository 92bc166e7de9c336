/**
 * One call of the public REST API or of an MCP tool, and the steps of the spec's enforcement
 * order that follow the token: the instance switch, the bearer token, its rate limit and the
 * scope have passed (bearerAuthentication.ts, the route table's `token` rule, the MCP tool
 * wrapper); what remains is the pond's opt-in for the channel and the token's pond
 * restriction, then the normal permission model, unchanged (the policy module).
 *
 * A pond the caller cannot read answers 404 whatever else is wrong with it, so a token learns
 * nothing of ponds it could not see anyway; a readable pond names the refusal.
 */
import type { Actor } from '../auth/authenticateRequest.ts';
import { recordTokenWrite } from '../audit/tokenWrites.ts';
import { ApiError, notFound } from '../http/apiError.ts';
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
 * The live pond a call names by slug, after its opt-in and the token's restriction: 404 when
 * the caller cannot see it (or it does not exist), else 403 `pond_api_disabled` or
 * `token_pond_restricted`.
 */
export async function resolveApiPond(call: ApiCall, pondSlug: string): Promise<{ pond: Pond; access: SubjectAccess }> {
  const { pond, access } = await findLivePond(call.services.sequelize, call.subject, pondSlug);
  if (!pondVisible(access)) throw notFound();
  return { pond, access: assertPondReachable(call, pond, access) };
}

/** The opt-in and restriction steps for a pond already found (e.g. through a comment's page). */
export function assertPondReachable(call: ApiCall, pond: Pond, access: SubjectAccess): SubjectAccess {
  if (!pondVisible(access)) throw notFound();
  if (!pondOptedIn(pond, call.channel)) throw new ApiError('pond_api_disabled', 403, { pond: pond.slug, channel: call.channel });
  const restriction = call.actor.token?.pondId ?? null;
  if (restriction !== null && restriction !== pond.id) throw new ApiError('token_pond_restricted', 403, { pondId: restriction });
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
