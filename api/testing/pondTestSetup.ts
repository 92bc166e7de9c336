/**
 * Helpers the pond, page and label route tests share (each split across two files): error
 * assertions, a seeded team pond, the cast of a page suite, ponds created through the API,
 * and label requests.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { AuditEntry, PageLabel, type Page, type Pond, type PondRole } from '../models/index.ts';
import { seedGrant, seedSharedPond } from './accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from './fixtures.ts';
import { TestClient } from './testClient.ts';
import { startTestInstance, type TestInstance, type TestInstanceOptions } from './testInstance.ts';

type ErrorResponse = { status: number; body: any; text: string };

export type SignedIn = Awaited<ReturnType<typeof createVerifiedUser>>;

export const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
/** The keys of a PageView (the detail view adds canWrite, labelIds and pond). */
export const PAGE_VIEW_KEYS = ['createdAt', 'createdBy', 'id', 'parentId', 'pondId', 'position', 'slug', 'title', 'trashedAt', 'updatedAt', 'updatedBy'];

export function assertError(response: ErrorResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body?.error?.code, code, response.text);
}

export function fieldPaths(response: { body: any }): string[] {
  return (response.body.error.details.fields as { path: string }[]).map((field) => field.path);
}

/** 400 validation_failed naming `path` among the failing fields. */
export function assertFieldError(response: ErrorResponse, path: string): void {
  assertError(response, 400, 'validation_failed');
  const paths = fieldPaths(response);
  assert.ok(paths.includes(path), `expected a problem at ${path}, got ${paths.join(', ')}`);
}

/** `count` fresh verified, signed-in users (rate limits reset between sign-ups, all from 127.0.0.1). */
export async function signInUsers(instance: TestInstance, count: number): Promise<SignedIn[]> {
  const users: SignedIn[] = [];
  for (let i = 0; i < count; i += 1) {
    await resetRateLimits(instance);
    users.push(await createVerifiedUser(instance));
  }
  return users;
}

/** A shared pond of `ownerId` where `editorId` and `readerId` hold pond-scope grants. */
export async function seedTeamPondFor(ownerId: string, editorId: string, readerId: string): Promise<Pond> {
  const pond = await seedSharedPond(ownerId);
  await seedGrant(pond.id, { subject: { type: 'user', id: editorId }, role: 'editor' });
  await seedGrant(pond.id, { subject: { type: 'user', id: readerId }, role: 'reader' });
  return pond;
}

/** A set-up instance with four signed-in users and an anonymous client; see usePondCast. */
export interface PondCast {
  instance: TestInstance;
  owner: SignedIn;
  editor: SignedIn;
  reader: SignedIn;
  outsider: SignedIn;
  anonymous: TestClient;
  /** A shared pond of `owner` where `editor` and `reader` hold pond-scope grants. */
  seedTeamPond(): Promise<Pond>;
}

/**
 * Call inside a `describe` callback: registers its hooks. Before: a fresh instance, setup
 * completed, four users signed in. Before each test: rate limits reset. After: the instance
 * closed. The fields of the returned cast are filled in once `before` has run.
 */
export function usePondCast(instanceOptions: () => TestInstanceOptions | Promise<TestInstanceOptions> = () => ({})): PondCast {
  const cast = {
    seedTeamPond: () => seedTeamPondFor(cast.owner.user.id, cast.editor.user.id, cast.reader.user.id),
  } as PondCast;
  before(async () => {
    cast.instance = await startTestInstance(await instanceOptions());
    await completeSetup(cast.instance);
    [cast.owner, cast.editor, cast.reader, cast.outsider] = (await signInUsers(cast.instance, 4)) as [SignedIn, SignedIn, SignedIn, SignedIn];
    cast.anonymous = new TestClient(cast.instance.baseUrl);
  });
  after(() => cast.instance.close());
  beforeEach(() => resetRateLimits(cast.instance));
  return cast;
}

/** The audit entries of `action` about one pond, oldest first. */
export async function auditOf(action: string, pondId: string): Promise<AuditEntry[]> {
  const entries = await AuditEntry.findAll({ where: { action }, order: [['id', 'ASC']] });
  return entries.filter((entry) => entry.details.pondId === pondId);
}

/** Ponds made through the API on the instance `current()` answers once `before` has run. */
export function pondApiHelpers(current: () => TestInstance) {
  let nameCounter = 0;

  /** A signed-in user and a shared pond they created through the API. */
  async function ownerWithPond(body: { name?: string; slug?: string } = {}) {
    nameCounter += 1;
    const owner = await createVerifiedUser(current());
    const response = await owner.client.post('/ponds', { name: `Team pond ${nameCounter}`, ...body });
    assert.equal(response.status, 201, response.text);
    return { ...owner, pond: response.body as { id: string; slug: string; name: string } };
  }

  async function memberOf(pondId: string, role: PondRole) {
    const member = await createVerifiedUser(current());
    await seedGrant(pondId, { subject: { type: 'user', id: member.user.id }, role });
    return member;
  }

  return { ownerWithPond, memberOf };
}

export interface Person {
  client: TestClient;
  id: string;
}

/** A fresh verified user (rate limits reset first, as suites sign many up). */
export async function signedInPerson(instance: TestInstance): Promise<Person> {
  await resetRateLimits(instance);
  const { client, user } = await createVerifiedUser(instance);
  return { client, id: user.id };
}

export async function createLabel(client: TestClient, pondId: string, name: string, parentId?: string | null, color = '#336699') {
  const response = await client.post(`/ponds/${pondId}/labels`, { name, color, ...(parentId === undefined ? {} : { parentId }) });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; name: string; depth: number; parentId: string | null };
}

export function putLabels(client: TestClient, pageId: string, labelIds: string[]) {
  return client.request('PUT', `/pages/${pageId}/labels`, { body: { labelIds } });
}

export async function assignedLabelIds(page: Page): Promise<string[]> {
  return (await PageLabel.findAll({ where: { pageId: page.id } })).map((row) => row.labelId).sort();
}
