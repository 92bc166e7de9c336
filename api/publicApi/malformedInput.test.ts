/**
 * The malformed-input sweep (api/http/malformedInputSweep.ts) over the public REST API, switched
 * on, with a read-and-write token of the pond's owner: every route gets its path parameters,
 * query fields and body fields malformed one at a time (NUL, lone surrogates, over-long text,
 * bad numbers and cursors, wrong JSON shapes, wrong content types, deep nesting). No answer may
 * be a 5xx, show internal text, or come without the error envelope and a registered code. The
 * internal API has its own sweep (api/http/malformedInput.test.ts); there the public API is off.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createApp } from '../app.ts';
import { QueryTypes } from 'sequelize';
import { Label, Page } from '../models/index.ts';
import { answerProblem, discoverRouteDefinitions, matchDefinitions, sampleBody, sampleRequest, servedRoutes, sweepRequests, type SweepFixtures, type SweepRequest, type SweptRoute } from '../http/malformedInputSweep.ts';
import { completeSetup, createVerifiedUser } from '../testing/fixtures.ts';
import { issueToken, setInstanceSwitches, setPondSwitches } from '../testing/publicApiFixtures.ts';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import type { TestClient } from '../testing/testClient.ts';
import { PUBLIC_API_PREFIX } from './publicApiRouter.ts';
import { publicApiRoutes } from './publicApiRoutes.ts';

/** Bodies that pass validation, so one malformed field at a time gets past the others. */
const SAMPLE_BODIES: Record<string, (fixtures: SweepFixtures) => unknown> = {
  'POST /ponds/:pondSlug/pages': (fixtures) => ({ title: 'Sweep child', markdown: '# Hi\n\n[[sweep-target]]', parent: fixtures.pageSlug, slug: 'sweep-child' }),
  'PATCH /ponds/:pondSlug/pages/:pageSlug': () => ({ title: 'Sweep page', append: 'More.' }),
  'POST /ponds/:pondSlug/labels': (fixtures) => ({ name: 'Sweep child', color: '#336699', parentId: fixtures.labelId }),
  'PATCH /ponds/:pondSlug/labels/:labelId': () => ({ name: 'Sweep label', color: '#336699', parentId: null }),
  'POST /ponds/:pondSlug/pages/:pageSlug/comments': (fixtures) => ({ body: 'A **reply**.', parentId: fixtures.commentId }),
};
const SAMPLE_QUERIES: Record<string, Record<string, string>> = { 'GET /ponds/:pondSlug/search': { q: 'sweep' } };

let instance: TestInstance;
let owner: TestClient;
let ownerId: string;
let secret: string;
let routes: SweptRoute[];
let sent = 0;

before(async () => {
  instance = await startTestInstance({ env: { API_RATE_LIMIT_PER_MINUTE: '1000000' } });
  await completeSetup(instance);
  await setInstanceSwitches(instance, { api: true });
  const user = await createVerifiedUser(instance);
  owner = user.client;
  ownerId = user.user.id;
  secret = (await issueToken(instance, ownerId, { scope: 'write' })).secret;
  const app = await createApp(instance.services, { site: false });
  const definitions = await discoverRouteDefinitions(path.resolve(import.meta.dirname, '..'));
  routes = matchDefinitions(servedRoutes(app), definitions, [{ prefix: PUBLIC_API_PREFIX, routes: publicApiRoutes }]).filter((route) => route.path.startsWith(`${PUBLIC_API_PREFIX}/`));
});
after(async () => {
  process.stdout.write(`# public API malformed-input sweep: ${routes?.length ?? 0} routes, ${sent} requests\n`);
  await instance?.close();
});

let built = 0;
/** A pond opted in, with a target page, a page carrying a label and a comment thread. */
async function build(): Promise<SweepFixtures> {
  built += 1;
  const pond = await owner.post('/ponds', { name: `Sweep ${built}`, slug: `sweep-${built}` });
  assert.equal(pond.status, 201, pond.text);
  await setPondSwitches(pond.body.id, { api: true });
  await owner.post(`/ponds/${pond.body.id}/pages`, { title: 'Sweep target', slug: 'sweep-target', markdown: 'Target of the sweep.' });
  const page = await owner.post(`/ponds/${pond.body.id}/pages`, { title: 'Sweep page', slug: 'sweep-page', markdown: 'A sweep page linking [[sweep-target]].' });
  const label = await owner.post(`/ponds/${pond.body.id}/labels`, { name: 'Sweep label', color: '#336699' });
  await owner.request('PUT', `/pages/${page.body.id}/labels`, { body: { labelIds: [label.body.id] } });
  const comment = await owner.post(`/pages/${page.body.id}/comments`, { body: 'A sweep thread.' });
  const fixtures: SweepFixtures = {
    pondId: pond.body.id,
    pageId: page.body.id,
    labelId: label.body.id,
    versionId: 'x',
    grantId: 'x',
    memberId: ownerId,
    memberLogin: 'x',
    baseUrl: instance.baseUrl,
    pondSlug: pond.body.slug,
    pageSlug: page.body.slug,
    commentId: comment.body.id,
  };
  for (const [name, value] of Object.entries(fixtures)) assert.equal(typeof value, 'string', `fixture ${name}`);
  return fixtures;
}

/** The fixtures as they are, or new ones when a successful write destroyed one of them. */
async function intact(fixtures: SweepFixtures): Promise<SweepFixtures> {
  const page = await Page.findByPk(fixtures.pageId);
  const whole =
    page !== null &&
    page.trashedAt === null &&
    page.slug === fixtures.pageSlug &&
    (await Label.findByPk(fixtures.labelId)) !== null &&
    (await instance.services.sequelize.query('SELECT 1 FROM comments WHERE id = $1', { bind: [fixtures.commentId], type: QueryTypes.SELECT })).length === 1;
  return whole ? fixtures : build();
}

const keyOf = (route: SweptRoute) => `${route.definition!.method.toUpperCase()} ${route.definition!.path}`;

function requestsFor(route: SweptRoute, fixtures: SweepFixtures): SweepRequest[] {
  return sweepRequests(route, fixtures, { sampleBody: sampleBody(route, fixtures, SAMPLE_BODIES), sampleQuery: SAMPLE_QUERIES[keyOf(route)] ?? {} });
}

async function send(request: SweepRequest): Promise<{ status: number; text: string }> {
  sent += 1;
  try {
    const response = await fetch(instance.baseUrl + request.url, {
      method: request.method,
      headers: { ...request.headers, authorization: `Bearer ${secret}` },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(20_000),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: String((error as { cause?: unknown }).cause ?? error) };
  }
}

/** Writes that may still succeed with a malformed request (deletions) go last. */
const rank = (route: SweptRoute) => (route.method === 'delete' ? 1 : 0);

test('every public REST route, with a write token, answers malformed input with a clean error', { timeout: 600_000 }, async () => {
  assert.equal(routes.length, publicApiRoutes.length, 'every route of the table is served and swept');
  assert.ok(routes.every((route) => route.definition !== null));
  const problems: string[] = [];
  let fixtures = await build();
  for (const route of [...routes].sort((a, b) => rank(a) - rank(b))) {
    // The well-formed sample reaches the handler: a refusal there would leave the sweep testing the refusal only.
    const sample = await send(sampleRequest(route, fixtures, { sampleBody: sampleBody(route, fixtures, SAMPLE_BODIES), sampleQuery: SAMPLE_QUERIES[keyOf(route)] ?? {} }));
    if (sample.status >= 400 && route.method !== 'delete') problems.push(`${keyOf(route)}: the sample answered ${sample.status} ${sample.text.slice(0, 200)}`);
    fixtures = await intact(fixtures);
    let requests = requestsFor(route, fixtures);
    for (let index = 0; index < requests.length; index += 1) {
      const request = requests[index]!;
      const answer = await send(request);
      const problem = answerProblem(answer);
      if (problem) problems.push(`${keyOf(route)} (${request.label}): ${problem}: ${answer.text.slice(0, 200)}`);
      if (answer.status >= 200 && answer.status < 300 && route.method !== 'get') {
        const current = await intact(fixtures);
        if (current !== fixtures) requests = requestsFor(route, (fixtures = current));
      }
    }
  }
  assert.deepEqual(problems, [], `${sent} requests sent, ${problems.length} problems:\n${problems.slice(0, 40).join('\n')}`);
});
