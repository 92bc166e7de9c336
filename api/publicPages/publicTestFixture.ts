/**
 * A pond for the public-layer tests, made through the API: `guide` (public) with children
 * `install` (public) and `secret` ("Secret plans", denied to the public), and a private pond
 * with a page `notes`.
 */
import assert from 'node:assert/strict';
import type { TestClient } from '../testing/testClient.ts';
import type { TestInstance } from '../testing/testInstance.ts';

export interface PublicFixture {
  pond: { id: string; slug: string };
  privatePond: { id: string; slug: string };
  pages: Record<'guide' | 'install' | 'secret', string>;
}

export async function createPage(client: TestClient, pondId: string, body: { title: string; slug: string; markdown?: string; parentId?: string }): Promise<string> {
  const response = await client.post(`/ponds/${pondId}/pages`, body);
  assert.equal(response.status, 201, response.text);
  return response.body.id as string;
}

export async function grantPublic(client: TestClient, pondId: string, scope: { type: 'pond' } | { type: 'page'; id: string }, effect: 'allow' | 'deny' = 'allow'): Promise<string> {
  const response = await client.post(`/ponds/${pondId}/grants`, { subject: { type: 'public' }, role: 'reader', scope, effect });
  assert.equal(response.status, 201, response.text);
  return response.body.id as string;
}

export async function publicFixture(_instance: TestInstance, admin: TestClient): Promise<PublicFixture> {
  const pond = (await admin.post('/ponds', { name: 'Handbook', slug: 'handbook' })).body as { id: string; slug: string };
  const privatePond = (await admin.post('/ponds', { name: 'Private', slug: 'private-pond' })).body as { id: string; slug: string };
  await grantPublic(admin, pond.id, { type: 'pond' });
  const guide = await createPage(admin, pond.id, { title: 'Guide', slug: 'guide', markdown: '# Guide\n\nWelcome to the guide.\n\n## Next steps\n\nRead on.' });
  const install = await createPage(admin, pond.id, { title: 'Installation', slug: 'install', parentId: guide, markdown: 'Install it with `npm install`.' });
  const secret = await createPage(admin, pond.id, { title: 'Secret plans', slug: 'secret', parentId: guide, markdown: 'Nobody may know.' });
  await grantPublic(admin, pond.id, { type: 'page', id: secret }, 'deny');
  await createPage(admin, privatePond.id, { title: 'Notes', slug: 'notes', markdown: 'Private notes.' });
  return { pond, privatePond, pages: { guide, install, secret } };
}
