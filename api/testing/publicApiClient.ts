/**
 * The REST tests' client for `/api/public/v1`: it sends the bearer token and checks EVERY
 * answer against the OpenAPI document (openApiDocument.ts), so a route that answers something
 * its description does not say fails the test that met it, and the document stays true (spec:
 * Versioning, "kept in step with the routes").
 *
 * Per answer: the operation is found by method and path template; its status must be one the
 * operation lists; required headers (`Retry-After` on 429) must be there; a JSON body must match
 * the schema of that status (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it), a file answer
 * must carry its media type, a body-less answer must be empty. A path no route has must answer
 * an error in the envelope. Anything else throws an AssertionError naming the route, the status
 * and what did not match.
 */
import { AssertionError } from 'node:assert';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOperation, type OpenApiResponse } from '../publicApi/openApiDocument.ts';
import { PUBLIC_API_PREFIX } from '../publicApi/publicApiRouter.ts';

export interface PublicApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined for an empty or non-JSON answer. */
  body: T;
  text: string;
  /** The raw body, for files (`export.zip`). */
  bytes: Uint8Array;
}

export interface PublicApiRequestOptions {
  body?: unknown;
  /** Sent as is (e.g. malformed JSON); `content-type` defaults to JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another token for this one request; `null` sends none. */
  token?: string | null;
  query?: Record<string, string | number | boolean | undefined>;
}

const DOCUMENT_ID = 'https://dorfteich.invalid/openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Formats zod writes into the schemas; simple checks suffice here, zod writes a `pattern` next to the strict ones. */
const FORMATS: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(value) && !Number.isNaN(Date.parse(value)),
  date: (value) => /^\d{4}-\d\d-\d\d$/.test(value) && !Number.isNaN(Date.parse(value)),
  time: (value) => /^\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?$/i.test(value),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  uri: (value) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value),
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  binary: () => true,
};

interface Compiled {
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const compiledDocuments = new WeakMap<OpenApiDocument, Compiled>();

function compiledFor(document: OpenApiDocument): Compiled {
  let compiled = compiledDocuments.get(document);
  if (!compiled) {
    // Not strict: the document's schemas carry OpenAPI's own words next to JSON Schema's.
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: { log() {}, warn() {}, error: console.error } });
    for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
    // The whole document under one id, so the schemas' `#/components/schemas/…` refs resolve in it.
    ajv.addSchema(JSON.parse(JSON.stringify(document)) as object, DOCUMENT_ID, undefined, false);
    compiled = { ajv, validators: new Map() };
    compiledDocuments.set(document, compiled);
  }
  return compiled;
}

function validatorAt(document: OpenApiDocument, pointer: string): ValidateFunction {
  const compiled = compiledFor(document);
  let validate = compiled.validators.get(pointer);
  if (!validate) {
    validate = compiled.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    compiled.validators.set(pointer, validate);
  }
  return validate;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface MatchedOperation {
  template: string;
  method: (typeof METHODS)[number];
  operation: OpenApiOperation;
}

/** The operation for a request path (below the prefix): the template that matches, the most literal one first, as Express would pick. */
export function matchOperation(document: OpenApiDocument, method: string, path: string): MatchedOperation | null {
  const wanted = method.toLowerCase() as MatchedOperation['method'];
  let best: (MatchedOperation & { literals: number }) | null = null;
  for (const [template, item] of Object.entries(document.paths)) {
    const operation = item[wanted];
    if (!operation) continue;
    const pattern = template.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    if (!new RegExp(`^${pattern.join('/')}/?$`).test(path)) continue;
    const literals = template.split('/').filter((segment) => segment && !segment.startsWith('{')).length;
    if (!best || literals > best.literals) best = { template, method: wanted, operation, literals };
  }
  return best;
}

/** The response object for a status, with its pointer in the document (a component's, when it is a `$ref`). */
function responseAt(document: OpenApiDocument, matched: MatchedOperation, status: number): { response: OpenApiResponse; pointer: string } | null {
  const entry = matched.operation.responses[String(status)];
  if (!entry) return null;
  if ('$ref' in entry) {
    const name = entry.$ref.replace('#/components/responses/', '');
    const response = document.components.responses[name];
    if (!response) throw new AssertionError({ message: `The document refers to a missing response ${entry.$ref}` });
    return { response, pointer: `/components/responses/${escapePointer(name)}` };
  }
  return { response: entry, pointer: `/paths/${escapePointer(matched.template)}/${matched.method}/responses/${status}` };
}

function fail(route: string, status: number, problem: string, text: string): never {
  throw new AssertionError({ message: `${route} answered ${status}: ${problem}\nBody: ${text.slice(0, 800)}` });
}

function checkJson(document: OpenApiDocument, pointer: string, body: unknown, route: string, status: number, text: string): void {
  const validate = validatorAt(document, pointer);
  if (!validate(body)) fail(route, status, `the body does not match the OpenAPI document (${pointer}): ${compiledFor(document).ajv.errorsText(validate.errors, { separator: '; ' })}`, text);
}

/** Throws an AssertionError unless the answer is what the document says the route answers. */
export function assertAnswerMatchesDocument(document: OpenApiDocument, request: { method: string; path: string }, answer: PublicApiResponse): void {
  const path = request.path.split('?')[0]!;
  const matched = matchOperation(document, request.method, path);
  const contentType = answer.headers.get('content-type') ?? '';
  if (!matched) {
    // No route: Express's fall-through answers the error envelope (404 `not_found`, or `api_disabled` before it).
    const route = `${request.method.toUpperCase()} ${path} (no such route)`;
    if (answer.status < 400) fail(route, answer.status, 'a path no route has must answer an error', answer.text);
    if (!contentType.includes('json') || answer.body === undefined) fail(route, answer.status, `expected the JSON error envelope, got ${contentType || 'no content type'}`, answer.text);
    checkJson(document, '/components/schemas/Error', answer.body, route, answer.status, answer.text);
    return;
  }
  const route = `${request.method.toUpperCase()} ${matched.template} (${matched.operation.operationId}, requested ${path})`;
  const found = responseAt(document, matched, answer.status);
  if (!found) fail(route, answer.status, `the operation does not document this status (it lists ${Object.keys(matched.operation.responses).join(', ')})`, answer.text);
  const { response, pointer } = found;
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = answer.headers.get(name);
    if (value === null) {
      if (header.required) fail(route, answer.status, `the required header ${name} is missing`, answer.text);
      continue;
    }
    if (header.schema.type === 'integer' && !/^\d+$/.test(value)) fail(route, answer.status, `header ${name} is not an integer: ${value}`, answer.text);
  }
  const content = response.content ?? {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) {
    if (answer.bytes.length > 0) fail(route, answer.status, 'the document says this answer has no body, but it has one', answer.text);
    return;
  }
  if (content['application/json']) {
    if (!contentType.includes('application/json')) fail(route, answer.status, `expected application/json, got ${contentType || 'no content type'}`, answer.text);
    if (answer.body === undefined) fail(route, answer.status, 'the body is not JSON', answer.text);
    checkJson(document, `${pointer}/content/${escapePointer('application/json')}/schema`, answer.body, route, answer.status, answer.text);
    return;
  }
  if (!mediaTypes.some((mediaType) => contentType.toLowerCase().startsWith(mediaType.toLowerCase()))) fail(route, answer.status, `expected ${mediaTypes.join(' or ')}, got ${contentType || 'no content type'}`, answer.text);
}

export class PublicApiClient {
  readonly baseUrl: string;
  token: string | undefined;
  readonly document: OpenApiDocument;

  /**
   * `baseUrl`: the instance's origin (`instance.baseUrl` of startTestInstance); paths are below
   * `/api/public/v1`. `document` replaces the real one (the client's own tests).
   */
  constructor(baseUrl: string, token?: string, options: { document?: OpenApiDocument } = {}) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.document = options.document ?? buildOpenApiDocument({ serverUrl: baseUrl });
  }

  async request<T = any>(method: string, path: string, options: PublicApiRequestOptions = {}): Promise<PublicApiResponse<T>> {
    const relative = path.startsWith(PUBLIC_API_PREFIX) ? path.slice(PUBLIC_API_PREFIX.length) : path;
    const url = new URL(`${PUBLIC_API_PREFIX}${relative}`, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization ??= `Bearer ${token}`;
    let body = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(url, { method: method.toUpperCase(), headers, body, redirect: 'manual' });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown = undefined;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    const answer: PublicApiResponse<T> = { status: response.status, headers: response.headers, body: parsed as T, text, bytes };
    assertAnswerMatchesDocument(this.document, { method, path: url.pathname.slice(PUBLIC_API_PREFIX.length) || '/' }, answer);
    return answer;
  }

  get<T = any>(path: string, options?: PublicApiRequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: PublicApiRequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: PublicApiRequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: PublicApiRequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: PublicApiRequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
