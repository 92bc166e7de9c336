/**
 * A pond a token cannot reach answers exactly as a pond that does not exist (spec: Errors, an
 * unreadable pond gives 404; MCP endpoint, "when off the answer is 404"): switched off for the
 * channel, outside the token's pond restriction, unreadable and missing all give the same
 * status, code and body apart from the slug sent, over REST and over MCP, so a token learns
 * nothing of a pond it may not use. The one message names every possibility, so a script
 * author knows what to check.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { messageVariantsDe } from '../i18n/errorMessages.de.ts';
import { messageVariantsEn } from '../i18n/errorMessages.en.ts';
import type { Pond } from '../models/index.ts';
import { seedSharedPond } from '../testing/accessFixtures.ts';
import { completeSetup } from '../testing/fixtures.ts';
import { connectMcp, issueToken, toolError } from '../testing/mcpClient.ts';
import { signInUsers, type SignedIn } from '../testing/pondTestSetup.ts';
import { setInstanceSwitches, setPondSwitches } from '../testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';

let instance: TestInstance;
let owner: SignedIn;
let outsider: SignedIn;
/** Both channels on: the pond every token here may use. */
let open: Pond;
/** Both channels off. */
let closed: Pond;
/** Both channels on, but not the pond of the restricted token. */
let elsewhere: Pond;
let ownerSecret: string;
let restrictedSecret: string;
let outsiderSecret: string;
const clients: Client[] = [];

before(async () => {
  instance = await startTestInstance();
  await completeSetup(instance);
  [owner, outsider] = (await signInUsers(instance, 2)) as [SignedIn, SignedIn];
  open = await seedSharedPond(owner.user.id, 'Open');
  closed = await seedSharedPond(owner.user.id, 'Closed');
  elsewhere = await seedSharedPond(owner.user.id, 'Elsewhere');
  await setPondSwitches(open.id, { api: true, mcp: true });
  await setPondSwitches(elsewhere.id, { api: true, mcp: true });
  await setInstanceSwitches(instance, { api: true, mcp: true });
  ownerSecret = await issueToken(instance, owner.user.id, { scope: 'read' });
  restrictedSecret = await issueToken(instance, owner.user.id, { scope: 'read', pondId: open.id });
  outsiderSecret = await issueToken(instance, outsider.user.id, { scope: 'read' });
});

after(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await instance.close();
});

/** The error body with the slug sent replaced, so only what differs beyond it is compared. */
function withoutSlug(body: unknown, slug: string): string {
  return JSON.stringify(body).replaceAll(slug, '<slug>');
}

async function restRefusal(secret: string, slug: string, locale = 'en'): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL(`/api/public/v1/ponds/${slug}/pages`, instance.baseUrl), { headers: { authorization: `Bearer ${secret}`, 'accept-language': locale } });
  return { status: response.status, body: withoutSlug(await response.json(), slug) };
}

async function mcpRefusal(secret: string, tool: string, slug: string): Promise<string> {
  const client = await connectMcp(instance, secret);
  clients.push(client);
  return withoutSlug({ error: await toolError(client, tool, { pond: slug }) }, slug);
}

describe('REST', () => {
  test('switched off, restricted to another pond, unreadable and missing: the same 404 body apart from the slug', async () => {
    const missing = await restRefusal(ownerSecret, 'no-such-pond');
    assert.equal(missing.status, 404);
    assert.deepEqual(JSON.parse(missing.body), { error: { code: 'not_found', message: messageVariantsEn.pond_unreachable, details: { pond: '<slug>' } } });
    assert.deepEqual(await restRefusal(ownerSecret, closed.slug), missing, 'the pond has not switched the API on');
    assert.deepEqual(await restRefusal(restrictedSecret, elsewhere.slug), missing, 'the token is restricted to another pond');
    assert.deepEqual(await restRefusal(outsiderSecret, open.slug), missing, "the token's owner cannot read the pond");
    assert.equal((await fetch(new URL(`/api/public/v1/ponds/${open.slug}/pages`, instance.baseUrl), { headers: { authorization: `Bearer ${restrictedSecret}` } })).status, 200);
  });

  test('the same in German, with the German message', async () => {
    const missing = await restRefusal(ownerSecret, 'no-such-pond', 'de');
    assert.equal(JSON.parse(missing.body).error.message, messageVariantsDe.pond_unreachable);
    assert.deepEqual(await restRefusal(ownerSecret, closed.slug, 'de'), missing);
    assert.deepEqual(await restRefusal(restrictedSecret, elsewhere.slug, 'de'), missing);
  });

  test('the message names every possibility a script author can check', () => {
    assert.match(messageVariantsEn.pond_unreachable, /not found/i);
    assert.match(messageVariantsEn.pond_unreachable, /token/i);
    assert.match(messageVariantsDe.pond_unreachable, /nicht gefunden/i);
    assert.match(messageVariantsDe.pond_unreachable, /token/i);
  });
});

describe('MCP', () => {
  test('switched off, restricted to another pond, unreadable and missing: the same tool error apart from the slug', async () => {
    const missing = await mcpRefusal(ownerSecret, 'list_pages', 'no-such-pond');
    assert.deepEqual(JSON.parse(missing), { error: { code: 'not_found', message: messageVariantsEn.pond_unreachable, details: { pond: '<slug>' } } });
    assert.equal(await mcpRefusal(ownerSecret, 'list_pages', closed.slug), missing, 'the pond has not switched MCP on');
    assert.equal(await mcpRefusal(restrictedSecret, 'list_pages', elsewhere.slug), missing, 'the token is restricted to another pond');
    assert.equal(await mcpRefusal(outsiderSecret, 'list_pages', open.slug), missing, "the token's owner cannot read the pond");
  });

  test('export_pond for a pond with MCP on but REST off answers as for a missing pond (its link would be refused)', async () => {
    await setPondSwitches(closed.id, { mcp: true });
    try {
      const missing = await mcpRefusal(ownerSecret, 'export_pond', 'no-such-pond');
      assert.equal(await mcpRefusal(ownerSecret, 'export_pond', closed.slug), missing);
    } finally {
      await setPondSwitches(closed.id, { mcp: false });
    }
  });
});
