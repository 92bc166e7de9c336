/**
 * The cast of the public REST route tests for search, labels, comments and export
 * (api/publicApi/routes/*.test.ts): an instance with the API switched on by its Site Admin
 * through `PATCH /admin/settings`, four users, team ponds switched on by their owner through
 * `PATCH /ponds/:id`, token clients that check every answer against the OpenAPI document, and
 * the `api.write` entries of the audit log.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { accessSubjectOf } from '../policies/accessPolicy.ts';
import type { ApiCall } from '../publicApi/apiCall.ts';
import { AuditEntry, User, type Pond } from '../models/index.ts';
import { seedSharedPond } from './accessFixtures.ts';
import { completeSetup } from './fixtures.ts';
import { seedTeamPondFor, signInUsers, type SignedIn } from './pondTestSetup.ts';
import { PublicApiClient } from './publicApiClient.ts';
import { issueToken } from './publicApiFixtures.ts';
import type { TestClient } from './testClient.ts';
import { startTestInstance, type TestInstance } from './testInstance.ts';

export interface RestCast {
  instance: TestInstance;
  admin: TestClient;
  /** Pond admin of the team ponds. */
  owner: SignedIn;
  editor: SignedIn;
  reader: SignedIn;
  /** No grant in the team ponds. */
  outsider: SignedIn;
  /** A shared pond of `owner` with `editor` and `reader` as pond-scope members; the API switched on unless `apiEnabled: false`. */
  seedApiPond(options?: { apiEnabled?: boolean }): Promise<Pond>;
  /** A client with a fresh token of `user`. */
  client(user: SignedIn, scope: 'read' | 'write', options?: { pondId?: string }): Promise<PublicApiClient & { tokenId: string }>;
  /** The `api.write` audit entries of one token, oldest first. */
  writesOf(tokenId: string): Promise<AuditEntry[]>;
  /** A call as the operations get it, for those no REST route reaches as such (MCP's `set_page_labels`); REST's switches apply. */
  callAs(user: SignedIn, scope: 'read' | 'write'): Promise<ApiCall>;
}

/** Call inside a `describe` callback: starts the instance before its tests and closes it after. */
export function useRestCast(): RestCast {
  const cast = {} as RestCast;
  cast.seedApiPond = async (options = {}) => {
    const pond = await seedTeamPondFor(cast.owner.user.id, cast.editor.user.id, cast.reader.user.id);
    if (options.apiEnabled === false) return pond;
    const response = await cast.owner.client.patch(`/ponds/${pond.id}`, { settings: { apiEnabled: true } });
    assert.equal(response.status, 200, response.text);
    await pond.reload();
    return pond;
  };
  cast.client = async (user, scope, options = {}) => {
    const token = await issueToken(cast.instance, user.user.id, { scope, pondId: options.pondId ?? null });
    return Object.assign(new PublicApiClient(cast.instance.baseUrl, token.secret), { tokenId: token.id });
  };
  cast.writesOf = async (tokenId) => {
    const entries = await AuditEntry.findAll({ where: { action: 'api.write' }, order: [['id', 'ASC']] });
    return entries.filter((entry) => entry.details.tokenId === tokenId);
  };
  cast.callAs = async (user, scope) => {
    const token = await issueToken(cast.instance, user.user.id, { scope });
    const actor = { user: await User.findByPk(user.user.id, { rejectOnEmpty: true }), session: null, token: { id: token.id, name: 'test', scope, pondId: null } };
    return { services: cast.instance.services, actor, subject: accessSubjectOf(actor), channel: 'rest', locale: async () => 'en', ip: undefined };
  };
  before(async () => {
    cast.instance = await startTestInstance();
    cast.admin = await completeSetup(cast.instance);
    const switched = await cast.admin.patch('/admin/settings', { 'api.enabled': true });
    assert.equal(switched.status, 200, switched.text);
    [cast.owner, cast.editor, cast.reader, cast.outsider] = (await signInUsers(cast.instance, 4)) as [SignedIn, SignedIn, SignedIn, SignedIn];
  });
  after(() => cast.instance.close());
  return cast;
}

/** A pond of the outsider's that `owner` cannot see at all (switched on, so only visibility refuses). */
export async function seedForeignPond(cast: RestCast): Promise<Pond> {
  const pond = await seedSharedPond(cast.outsider.user.id);
  const response = await cast.outsider.client.patch(`/ponds/${pond.id}`, { settings: { apiEnabled: true } });
  assert.equal(response.status, 200, response.text);
  return pond;
}

/** 403/404 with the error code, as the OpenAPI-checked client saw it. */
export function assertApiError(response: { status: number; body: any; text: string }, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body?.error?.code, code, response.text);
}
