/**
 * What the malformed-input sweep (malformedInput.test.ts) sends where.
 *
 * The routes are the ones the app serves, walked from Express' router stack, so a router
 * mounted later (public REST, MCP) is swept without touching the test. The route-table
 * definitions behind them are found by scanning api/ for modules that export route tables;
 * their zod schemas name the fields worth attacking. A route without a definition is still
 * swept, with the generic values only.
 */
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Express } from 'express';
import { z } from 'zod';
import type { AnyRoute } from './routeTable.ts';
import { ERROR_STATUS } from './errorCodes.ts';

export interface SweptRoute {
  method: string;
  /** The full path as served, with `:param` placeholders. */
  path: string;
  /** The route-table entry behind it, when one was found. */
  definition: AnyRoute | null;
}

export interface SweepRequest {
  /** What is malformed, for the failure report. */
  label: string;
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

/** Ids and names of the resources a path parameter or a body field can point at. */
export interface SweepFixtures {
  pondId: string;
  pageId: string;
  labelId: string;
  versionId: string;
  grantId: string;
  memberId: string;
  memberLogin: string;
  baseUrl: string;
  /** The public REST API names ponds and pages by slug, and comments by id. */
  pondSlug?: string;
  pageSlug?: string;
  commentId?: string;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
  rawPath?: unknown;
}

/** Every route Express serves, with its mount prefix. */
export function servedRoutes(app: Express): { method: string; path: string }[] {
  const found: { method: string; path: string }[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, enabled] of Object.entries(layer.route.methods)) if (enabled && method !== '_all') found.push({ method, path: prefix + layer.route.path });
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  return found;
}

function isRouteDefinition(value: unknown): value is AnyRoute {
  if (typeof value !== 'object' || value === null) return false;
  const route = value as Partial<AnyRoute>;
  return typeof route.method === 'string' && typeof route.path === 'string' && typeof route.handler === 'function' && typeof route.access === 'object';
}

/** Every route definition exported as part of a route table by a module under `root` (tests and test helpers aside). */
export async function discoverRouteDefinitions(root: string): Promise<AnyRoute[]> {
  const definitions = new Set<AnyRoute>();
  for (const file of globSync('**/*.ts', { cwd: root }).sort()) {
    if (file.endsWith('.test.ts') || file.startsWith(`testing${path.sep}`)) continue;
    const full = path.join(root, file);
    if (!readFileSync(full, 'utf8').includes('defineRoute(')) continue;
    const module = (await import(pathToFileURL(full).href)) as Record<string, unknown>;
    for (const exported of Object.values(module)) {
      if (Array.isArray(exported) && exported.length > 0 && exported.every(isRouteDefinition)) for (const route of exported) definitions.add(route);
    }
  }
  return [...definitions];
}

/** A route table and where it is mounted: its definitions match only the served paths under that prefix. */
export interface RouteMount {
  prefix: string;
  routes: readonly AnyRoute[];
}

/**
 * The served routes, each with the definition whose path it ends in (the mount prefix before
 * it). Where several end it, the longest path wins (`/api/v1/users/me` is the internal
 * `/users/me`, not the public API's `/me`); a definition of a table in `mounts` matches only
 * under that table's prefix, so two tables' routes of the same path (the internal and the
 * public `POST /comments/:id/resolve`) each find their own.
 */
export function matchDefinitions(served: { method: string; path: string }[], definitions: AnyRoute[], mounts: readonly RouteMount[] = []): SweptRoute[] {
  const prefixOf = new Map<AnyRoute, string>();
  for (const mount of mounts) for (const route of mount.routes) prefixOf.set(route, mount.prefix);
  return served.map((route) => {
    const candidates = definitions.filter((definition) => {
      if (definition.method !== route.method || !route.path.endsWith(definition.path)) return false;
      const prefix = prefixOf.get(definition);
      return prefix === undefined || route.path === prefix + definition.path;
    });
    candidates.sort((a, b) => b.path.length - a.path.length);
    return { ...route, definition: candidates[0] ?? null };
  });
}

// --- The values thrown at fields ----------------------------------------------------------

const UUID = '00000000-0000-4000-8000-000000000000';
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const json64 = (value: unknown) => base64url(JSON.stringify(value));

/** Text no database column takes (NUL, lone surrogates), a long one and an empty one. */
const TEXT_VALUES = ['a\u0000b', 'a\ud800b', '\udc00', 'x'.repeat(20_000), ''];
/** Timestamps outside what Postgres holds (year 0, beyond 294276) and impossible ones. */
const DATE_VALUES = ['0000-01-01', '0000-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z', '99999-12-31', '2024-02-30', 'infinity'];
const NUMBER_TEXTS = ['1e308', '-1', 'NaN', '99999999999999999999', '1.5'];
const ID_VALUES = ['not-a-uuid', UUID];
/** Every shape a cursor of ours has taken, holding values outside the database's range. */
const CURSOR_VALUES = [
  base64url(`0000-01-01 00:00:00|${UUID}`),
  base64url(`0000-12-31 23:59:59.999999|${UUID}`),
  base64url(`2024-02-30 00:00:00|${UUID}`),
  base64url('0000-01-01 00:00:00'),
  json64(['0000-01-01 00:00:00', UUID]),
  json64(['0000-12-31 23:59:59.999999', UUID]),
  json64([0, 1e308, UUID]),
  json64([0, -1e308, UUID]),
  json64([1, 1e-320, UUID]),
  json64([2, 3.5e38, UUID]),
  json64([0, 0.5, `${UUID}\u0000`]),
  json64(['\u0000', UUID]),
  json64(['\ud800', UUID]),
  json64(['x'.repeat(5_000), UUID]),
  json64('\u0000'),
  json64('\ud800'),
  json64({}),
  json64(null),
  base64url('\u0000'),
  'not base64!',
];
/** Values of the wrong type for any field. */
const TYPE_VALUES: unknown[] = [12, 1e308, true, null, [], {}];
const BODY_VALUES: unknown[] = [...TEXT_VALUES, ...TYPE_VALUES, '0000-01-01T00:00:00Z', '2024-02-30', 'not-a-uuid'];

/** Percent-encoded path segments and query values (invalid UTF-8, an overlong NUL). */
const ENCODED_TEXT = ['%00', 'a%00b', '%ED%A0%80', '%C0%80', 'x'.repeat(5_000), ''];

const encode = (value: string) => encodeURIComponent(value.isWellFormed() ? value : value.toWellFormed());
/** For a declared query field: text, dates, numbers, ids; cursors for a cursor. Encoded (a lone surrogate only as its WTF-8 bytes, in ENCODED_TEXT). */
function queryValues(field: string): string[] {
  const cursors = /cursor/i.test(field) ? CURSOR_VALUES : [];
  return [...ENCODED_TEXT, ...[...DATE_VALUES, ...NUMBER_TEXTS, ...ID_VALUES, ...cursors].map(encode)];
}
const PATH_VALUES = ['%00', '%ED%A0%80', '%C0%80', 'x'.repeat(2_000), 'not-a-uuid', '00000000-0000-0000-0000-000000000000', '1e308', '%2F'];

// --- Schemas, samples ---------------------------------------------------------------------

type Schema = z.ZodType | undefined;

/** The object shapes a schema accepts (through pipes, wrappers, unions), for field names. */
export function objectShapes(schema: Schema): Record<string, z.ZodType>[] {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
  switch (def?.type) {
    case 'object':
      return [def.shape as Record<string, z.ZodType>];
    case 'pipe':
      return objectShapes(def.in as z.ZodType);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return objectShapes(def.innerType as z.ZodType);
    case 'union':
      return (def.options as z.ZodType[]).flatMap(objectShapes);
    case 'intersection':
      return [...objectShapes(def.left as z.ZodType), ...objectShapes(def.right as z.ZodType)];
    default:
      return [];
  }
}

function fieldNames(schema: Schema): string[] {
  return [...new Set(objectShapes(schema).flatMap((shape) => Object.keys(shape)))];
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; const?: unknown; format?: string; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; minimum?: number; items?: JsonSchema; default?: unknown };

/** A plausible value for a schema no sample was written for: enough to get past validation for simple bodies. */
function sampleOf(schema: JsonSchema, name: string, fixtures: SweepFixtures, depth = 0): unknown {
  if (depth > 5) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const option = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (option) return sampleOf(option, name, fixtures, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, sampleOf(property, key, fixtures, depth + 1)]));
    case 'array':
      return schema.items ? [sampleOf(schema.items, name, fixtures, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      if (schema.format === 'uuid') return /label/i.test(name) ? fixtures.labelId : /page/i.test(name) ? fixtures.pageId : /user|member/i.test(name) ? fixtures.memberId : fixtures.pondId;
      if (schema.format === 'email') return 'sweep@example.org';
      if (schema.format === 'uri') return fixtures.baseUrl;
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return '2024-01-01';
      return `sweep ${name}`;
  }
}

/** A body the route takes: the hand-written sample, or one generated from the schema. */
export function sampleBody(route: SweptRoute, fixtures: SweepFixtures, samples: Record<string, (fixtures: SweepFixtures) => unknown>): unknown {
  const definition = route.definition;
  if (!definition?.body) return undefined;
  const written = samples[`${definition.method.toUpperCase()} ${definition.path}`];
  if (written) return written(fixtures);
  try {
    return sampleOf(z.toJSONSchema(definition.body, { io: 'input', unrepresentable: 'any' }) as JsonSchema, '', fixtures);
  } catch {
    return {};
  }
}

// --- Requests -----------------------------------------------------------------------------

const JSON_TYPE = { 'content-type': 'application/json' };
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The id a path parameter stands for, chosen by the collection before it (`/ponds/:id` → a pond). */
function paramValue(segments: string[], index: number, fixtures: SweepFixtures): string {
  const bySlug: Record<string, string | undefined> = { ':pondSlug': fixtures.pondSlug, ':pageSlug': fixtures.pageSlug };
  const slug = bySlug[segments[index]!];
  if (slug !== undefined) return slug;
  const collection = segments[index - 1] ?? '';
  const byCollection: Record<string, string> = {
    ponds: fixtures.pondId,
    pages: fixtures.pageId,
    // `/watches/page/:id`, `/watches/pond/:id`
    page: fixtures.pageId,
    pond: fixtures.pondId,
    labels: fixtures.labelId,
    versions: fixtures.versionId,
    users: fixtures.memberId,
    members: fixtures.memberId,
    grants: fixtures.grantId,
    comments: fixtures.commentId ?? 'x',
    legal: 'imprint',
  };
  return byCollection[collection] ?? 'x';
}

/** The route's path with every parameter filled in, optionally one of them replaced by `override`. */
function fillPath(routePath: string, fixtures: SweepFixtures, override?: { index: number; value: string }): string {
  const segments = routePath.replace(/[{}]/g, '').split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith(':') && !segment.startsWith('*')) return segment;
      return override?.index === index ? override.value : encodeURIComponent(paramValue(segments, index, fixtures));
    })
    .join('/');
}

function queryString(entries: [string, string][]): string {
  return entries.length === 0 ? '' : `?${entries.map(([key, value]) => `${encodeURIComponent(key)}=${value}`).join('&')}`;
}

/** Every leaf and container path of a JSON value, for replacing one at a time. */
function valuePaths(value: unknown, prefix: string[] = []): string[][] {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((item, index) => valuePaths(item, [...prefix, String(index)]))];
  if (typeof value === 'object' && value !== null) return [prefix, ...Object.entries(value).flatMap(([key, item]) => valuePaths(item, [...prefix, key]))];
  return [prefix];
}

function withValueAt(value: unknown, at: string[], replacement: unknown, remove = false): unknown {
  if (at.length === 0) return replacement;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string, unknown>;
  const [head, ...rest] = at as [string, ...string[]];
  if (rest.length === 0 && remove) delete copy[head];
  else copy[head] = withValueAt(copy[head], rest, replacement, remove);
  return copy;
}

const nested = (depth: number, open: string, inner: string, close: string) => open.repeat(depth) + inner + close.repeat(depth);

/** Stands for an array nested 5,000 deep in a field (too deep for JSON.stringify itself). */
const DEEP_PLACEHOLDER = '\u0001deep\u0001';

/** Bodies sent to a route that takes none: it must ignore or refuse them, never fail. */
function unexpectedBodyVariants(): Omit<SweepRequest, 'method' | 'url'>[] {
  return [
    { label: 'text/plain body', headers: { 'content-type': 'text/plain' }, body: utf8('x') },
    { label: 'JSON body null', headers: JSON_TYPE, body: utf8('null') },
    { label: 'malformed JSON', headers: JSON_TYPE, body: utf8('{"a":') },
    { label: 'a NUL in a key', headers: JSON_TYPE, body: utf8(JSON.stringify({ 'a\u0000': 1 })) },
    { label: 'a lone surrogate in a value', headers: JSON_TYPE, body: utf8(JSON.stringify({ a: '\ud800' })) },
    { label: 'JSON over 1 MB', headers: JSON_TYPE, body: utf8(`{"a":"${'x'.repeat(1_100_000)}"}`) },
    { label: 'arrays nested 100,000 deep', headers: JSON_TYPE, body: utf8(nested(100_000, '[', '', ']')) },
  ];
}

/** Bodies that are not the JSON object a route takes. */
function wholeBodyVariants(sample: unknown): Omit<SweepRequest, 'method' | 'url'>[] {
  const text = JSON.stringify(sample ?? {});
  return [
    { label: 'no body, no content type', headers: {} },
    { label: 'empty JSON body', headers: JSON_TYPE, body: utf8('') },
    ...['null', '[]', '"text"', '42', '{"a":', '\ufeff' + text].map((raw) => ({ label: `JSON body ${raw.slice(0, 12)}`, headers: JSON_TYPE, body: utf8(raw) })),
    { label: 'the sample as text/plain', headers: { 'content-type': 'text/plain' }, body: utf8(text) },
    { label: 'the sample without a content type', headers: {}, body: utf8(text) },
    { label: 'the sample as a form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: utf8('a=b&c=%00') },
    { label: 'multipart', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: utf8('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n') },
    { label: 'XML', headers: { 'content-type': 'application/xml' }, body: utf8('<a/>') },
    { label: 'latin1 charset', headers: { 'content-type': 'application/json; charset=latin1' }, body: utf8(text) },
    { label: 'utf-16 charset', headers: { 'content-type': 'application/json; charset=utf-16' }, body: utf8(text) },
    { label: 'gzip encoding that is not', headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: utf8(text) },
    { label: '+json type', headers: { 'content-type': 'application/merge-patch+json' }, body: utf8(text) },
    { label: 'invalid UTF-8 in a string', headers: JSON_TYPE, body: new Uint8Array([...utf8('{"a":"'), 0xff, 0xfe, 0xc0, 0x80, ...utf8('"}')]) },
    { label: 'JSON over 1 MB', headers: JSON_TYPE, body: utf8(`{"a":"${'x'.repeat(1_100_000)}"}`) },
    { label: 'text over 1 MB', headers: { 'content-type': 'text/plain' }, body: utf8('x'.repeat(1_100_000)) },
    { label: 'arrays nested 100,000 deep', headers: JSON_TYPE, body: utf8(nested(100_000, '[', '', ']')) },
    { label: 'objects nested 20,000 deep', headers: JSON_TYPE, body: utf8(nested(20_000, '{"a":', '1', '}')) },
    { label: 'a NUL in a key', headers: JSON_TYPE, body: utf8(JSON.stringify({ ...(sample as object), 'a\u0000': 1 })) },
    { label: 'a lone surrogate in a key', headers: JSON_TYPE, body: utf8(JSON.stringify({ ...(sample as object), '\ud800': 1 })) },
    { label: '__proto__ key', headers: JSON_TYPE, body: utf8(`{"__proto__":{"isSiteAdmin":true},${text.slice(1)}`) },
  ];
}

/** The well-formed request: every parameter pointing at a fixture, the sample query and body. */
export function sampleRequest(route: SweptRoute, fixtures: SweepFixtures, options: { sampleBody: unknown; sampleQuery: Record<string, string> }): SweepRequest {
  const method = route.method.toUpperCase();
  const query = Object.entries(options.sampleQuery).map(([key, value]): [string, string] => [key, encodeURIComponent(value)]);
  const body = method === 'GET' || options.sampleBody === undefined ? undefined : utf8(JSON.stringify(options.sampleBody));
  return { label: 'the sample', method, url: fillPath(route.path, fixtures) + queryString(query), headers: body ? JSON_TYPE : {}, ...(body ? { body } : {}) };
}

/** The malformed requests for one route: path parameters, query fields and body fields, one at a time. */
export function sweepRequests(route: SweptRoute, fixtures: SweepFixtures, options: { sampleBody: unknown; sampleQuery: Record<string, string> }): SweepRequest[] {
  const requests: SweepRequest[] = [];
  const method = route.method.toUpperCase();
  const baseQuery = Object.entries(options.sampleQuery).map(([key, value]): [string, string] => [key, encodeURIComponent(value)]);
  const basePath = fillPath(route.path, fixtures);
  const sample = options.sampleBody;
  const sampleBody = method === 'GET' || sample === undefined ? undefined : utf8(JSON.stringify(sample));
  const base = { method, headers: sampleBody ? JSON_TYPE : {}, ...(sampleBody ? { body: sampleBody } : {}) };

  const segments = route.path.replace(/[{}]/g, '').split('/');
  segments.forEach((segment, index) => {
    if (!segment.startsWith(':') && !segment.startsWith('*')) return;
    for (const value of [...PATH_VALUES, encodeURIComponent(paramValue(segments, index, fixtures).toUpperCase())]) {
      requests.push({ ...base, label: `path ${segment} = ${value.slice(0, 40)}`, url: fillPath(route.path, fixtures, { index, value }) + queryString(baseQuery) });
    }
  });

  for (const field of fieldNames(route.definition?.query)) {
    const others = baseQuery.filter(([key]) => key !== field);
    for (const value of queryValues(field)) requests.push({ ...base, label: `query ${field} = ${value.slice(0, 40)}`, url: basePath + queryString([...others, [field, value]]) });
    requests.push({ ...base, label: `query ${field} repeated`, url: basePath + queryString([...others, [field, 'a'], [field, 'b']]) });
  }
  for (const value of ENCODED_TEXT) requests.push({ ...base, label: `query unknownField = ${value.slice(0, 40)}`, url: basePath + queryString([...baseQuery, ['unknownField', value]]) });

  if (method !== 'GET') {
    const takesBody = sample !== undefined || route.definition === null;
    for (const variant of takesBody ? wholeBodyVariants(sample) : unexpectedBodyVariants()) requests.push({ method, url: basePath + queryString(baseQuery), ...variant });
    if (sample !== undefined) {
      for (const at of valuePaths(sample).filter((at) => at.length > 0)) {
        const name = at.join('.');
        for (const replacement of BODY_VALUES) {
          const body = utf8(JSON.stringify(withValueAt(sample, at, replacement)));
          requests.push({ method, url: basePath + queryString(baseQuery), label: `body ${name} = ${JSON.stringify(replacement)?.slice(0, 40)}`, headers: JSON_TYPE, body });
        }
        requests.push({ method, url: basePath + queryString(baseQuery), label: `body ${name} removed`, headers: JSON_TYPE, body: utf8(JSON.stringify(withValueAt(sample, at, undefined, true))) });
        requests.push({ method, url: basePath + queryString(baseQuery), label: `body ${name} nested 5,000 deep`, headers: JSON_TYPE, body: utf8(JSON.stringify(withValueAt(sample, at, DEEP_PLACEHOLDER)).replace(JSON.stringify(DEEP_PLACEHOLDER), nested(5_000, '[', '', ']'))) });
      }
    }
  }
  return requests;
}

/**
 * What is wrong with an answer to a swept request, or null: none at all, a 5xx, text only an
 * internal error would show, or an error answer without the envelope and a registered code.
 */
export function answerProblem(answer: { status: number; text: string }): string | null {
  if (answer.status === 0) return `no answer: ${answer.text}`;
  if (answer.status >= 500) return `status ${answer.status}`;
  const marker = INTERNAL_ERROR_MARKERS.find((pattern) => pattern.test(answer.text));
  if (marker) return `internal text ${marker}`;
  if (answer.status >= 400) {
    let code: unknown;
    try {
      code = JSON.parse(answer.text)?.error?.code;
    } catch {
      code = undefined;
    }
    if (typeof code !== 'string' || !Object.hasOwn(ERROR_STATUS, code)) return 'an error answer without our envelope';
  }
  return null;
}

/** Text in a response that only an internal error would put there. */
export const INTERNAL_ERROR_MARKERS: RegExp[] = [
  /\bat (?:async )?[\w$.<>]+ \(/,
  /node:internal|node_modules/,
  /\.(?:ts|js):\d+:\d+/,
  /sequelize/i,
  /invalid input syntax/i,
  /out of range for type/i,
  /field value out of range/i,
  /violates (?:foreign key|unique|check|not-null) constraint/i,
  /syntax error at or near/i,
  /unsupported Unicode escape sequence/i,
  /invalid byte sequence/i,
  /\b(?:TypeError|ReferenceError|RangeError|SyntaxError): /,
  /Maximum call stack/i,
  /<pre>|<!DOCTYPE html>\s*<html lang="en">\s*<head>\s*<meta charset="utf-8">\s*<title>Error<\/title>/,
];
