/**
 * The API reference page (/api-reference) reads the OpenAPI document the API serves
 * (`/api/public/v1/openapi.json`, in process like the page's other reads) and turns it into
 * what the page shows: per tag the operations with their parameters, request and response
 * fields, error statuses and a curl example. Made from the same document clients get, so the
 * page cannot describe an API that differs from it. Language-neutral: the page words its own
 * chrome in German or English; summaries and field descriptions stay as the routes wrote them.
 */
import type { AstroGlobal } from 'astro';
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiParameter, OpenApiResponse } from '../../../api/publicApi/openApiDocument.ts';

export const OPEN_API_DOCUMENT_PATH = '/api/public/v1/openapi.json';

/** A limit worth telling beside the type; the page words it. */
export type FieldConstraint = { kind: 'default'; value: string } | { kind: 'range'; min: number | null; max: number | null } | { kind: 'maxLength'; max: number };

export interface ReferenceField {
  name: string;
  type: string;
  required: boolean;
  /** `path` or `query` for parameters. */
  location?: 'path' | 'query';
  description: string;
  constraints: FieldConstraint[];
}

export interface ReferenceOperation {
  /** The anchor (`#getPonds`). */
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string | null;
  /** Open to anyone, any token, or only a read-and-write one. */
  access: 'public' | 'read' | 'write';
  parameters: ReferenceField[];
  requestFields: ReferenceField[] | null;
  response: { status: string; description: string; mediaType: string | null; fields: ReferenceField[] };
  errorStatuses: string[];
  curl: string;
}

export interface ReferenceGroup {
  tag: string;
  description: string | null;
  operations: ReferenceOperation[];
}

export interface ApiReference {
  /** The API's base URL (the document's server). */
  baseUrl: string;
  version: string;
  groups: ReferenceGroup[];
  /** The shared error answers by status, as the document words them. */
  errors: { status: string; description: string }[];
}

/** The document as the API serves it; null when it cannot be read. */
export async function readOpenApiDocument(astro: AstroGlobal): Promise<OpenApiDocument | null> {
  try {
    const headers = { accept: 'application/json' };
    const { fetchApi } = astro.locals;
    const answer = fetchApi ? await fetchApi(OPEN_API_DOCUMENT_PATH, { headers }) : await fetch(`${astro.url.origin}${OPEN_API_DOCUMENT_PATH}`, { headers });
    if (!answer.ok) return null;
    const document = (await answer.json()) as OpenApiDocument;
    return typeof document?.paths === 'object' ? document : null;
  } catch {
    return null;
  }
}

const COMPONENT_PREFIX = '#/components/schemas/';
const MAX_DEPTH = 4;

function componentName(schema: JsonSchema): string | null {
  return typeof schema.$ref === 'string' && schema.$ref.startsWith(COMPONENT_PREFIX) ? schema.$ref.slice(COMPONENT_PREFIX.length) : null;
}

function resolve(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  const name = componentName(schema);
  return name ? (document.components.schemas[name] ?? {}) : schema;
}

/** A short type: `string (uuid)`, `Page`, `PageSummary[]`, `markdown | html`, `string | null`. */
export function typeLabel(schema: JsonSchema): string {
  const name = componentName(schema);
  if (name) return name;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(' | ');
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options)) return [...new Set(options.map(typeLabel))].join(' | ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return 'any';
  return types
    .map((type) => {
      if (type === 'array') return `${schema.items ? typeLabel(schema.items as JsonSchema) : 'any'}[]`;
      if (type === 'string' && typeof schema.format === 'string' && schema.format !== 'binary') return `string (${schema.format})`;
      return type;
    })
    .join(' | ');
}

function constraintsOf(schema: JsonSchema): FieldConstraint[] {
  const constraints: FieldConstraint[] = [];
  if (schema.default !== undefined) constraints.push({ kind: 'default', value: JSON.stringify(schema.default) });
  const min = typeof schema.minimum === 'number' && Math.abs(schema.minimum) < Number.MAX_SAFE_INTEGER ? schema.minimum : null;
  const max = typeof schema.maximum === 'number' && Math.abs(schema.maximum) < Number.MAX_SAFE_INTEGER ? schema.maximum : null;
  if (min !== null || max !== null) constraints.push({ kind: 'range', min, max });
  if (typeof schema.maxLength === 'number') constraints.push({ kind: 'maxLength', max: schema.maxLength });
  return constraints;
}

/** The object a field's schema describes, if any: through refs, arrays and `| null`. */
function objectBehind(document: OpenApiDocument, schema: JsonSchema, seen: Set<string>): { object: JsonSchema; suffix: string; ref: string | null } | null {
  const name = componentName(schema);
  if (name && seen.has(name)) return null;
  const resolved = resolve(document, schema);
  if (resolved.type === 'object' && resolved.properties) return { object: resolved, suffix: '', ref: name };
  if (resolved.type === 'array' && resolved.items) {
    const inner = objectBehind(document, resolved.items as JsonSchema, seen);
    return inner ? { ...inner, suffix: `[]${inner.suffix}` } : null;
  }
  const options = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  const objects = (options ?? []).filter((option) => option.type !== 'null');
  return objects.length === 1 ? objectBehind(document, objects[0]!, seen) : null;
}

/** The fields of a body, nested ones as `parent.child` and `items[].field`; a recursive schema is shown once. */
export function fieldsOf(document: OpenApiDocument, schema: JsonSchema, prefix = '', seen: Set<string> = new Set(), depth = 0): ReferenceField[] {
  const name = componentName(schema);
  const resolved = resolve(document, schema);
  if (resolved.type !== 'object' || !resolved.properties || depth > MAX_DEPTH) return [];
  const inner = new Set(seen);
  if (name) inner.add(name);
  const required = (resolved.required as string[] | undefined) ?? [];
  const fields: ReferenceField[] = [];
  for (const [property, propertySchema] of Object.entries(resolved.properties as Record<string, JsonSchema>)) {
    const target = resolve(document, propertySchema);
    const description = (propertySchema.description ?? target.description ?? '') as string;
    fields.push({ name: `${prefix}${property}`, type: typeLabel(propertySchema), required: required.includes(property), description, constraints: constraintsOf(target) });
    const behind = objectBehind(document, propertySchema, inner);
    if (behind) fields.push(...fieldsOf(document, behind.ref ? { $ref: `${COMPONENT_PREFIX}${behind.ref}` } : behind.object, `${prefix}${property}${behind.suffix}.`, inner, depth + 1));
  }
  return fields;
}

function parameterField(parameter: OpenApiParameter): ReferenceField {
  return { name: parameter.name, type: typeLabel(parameter.schema), required: parameter.required, location: parameter.in, description: parameter.description ?? '', constraints: constraintsOf(parameter.schema) };
}

/** `pondSlug` → `POND_SLUG`: a placeholder that reads as one in a shell line. */
function placeholder(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function sampleValue(name: string, schema: JsonSchema, document: OpenApiDocument): unknown {
  const resolved = resolve(document, schema);
  if (Array.isArray(resolved.enum)) return resolved.enum[0];
  const options = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options)) return sampleValue(name, options.find((option) => option.type !== 'null') ?? {}, document);
  const type = Array.isArray(resolved.type) ? resolved.type.find((item) => item !== 'null') : resolved.type;
  if (type === 'integer' || type === 'number') return typeof resolved.minimum === 'number' ? resolved.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  if (resolved.format === 'uuid') return '0b7e4a52-3d4c-4f1e-9a57-2a8f0e6c1d3b';
  if (resolved.format === 'date-time') return '2025-01-31T12:00:00Z';
  if (/markdown|content|append|body/i.test(name)) return '# Hello\n\nWritten through the API.';
  if (/color/i.test(name)) return '#1b6480';
  if (/title|name/i.test(name)) return 'Example';
  return 'text';
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A request a reader can paste: the token from `$DORFTEICH_TOKEN`, path parameters as placeholders, a body of the required fields. */
function curlOf(document: OpenApiDocument, baseUrl: string, method: string, path: string, operation: OpenApiOperation, access: ReferenceOperation['access']): string {
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query' && parameter.required).map((parameter) => `${parameter.name}=${placeholder(parameter.name)}`);
  const url = `${baseUrl.replace(/\/+$/, '')}${path.replace(/\{([^}]+)\}/g, (_match, name: string) => placeholder(name))}${query.length ? `?${query.join('&')}` : ''}`;
  const lines = ['curl'];
  if (method !== 'GET') lines.push(`-X ${method}`);
  if (access !== 'public') lines.push('-H "Authorization: Bearer $DORFTEICH_TOKEN"');
  const bodySchema = operation.requestBody?.content['application/json']?.schema;
  if (bodySchema) {
    const resolved = resolve(document, bodySchema);
    const properties = Object.entries((resolved.properties ?? {}) as Record<string, JsonSchema>);
    const required = (resolved.required as string[] | undefined) ?? [];
    const chosen = properties.filter(([name]) => required.includes(name));
    const body = Object.fromEntries((chosen.length ? chosen : properties.slice(0, 1)).map(([name, schema]) => [name, sampleValue(name, schema, document)]));
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(body))}`);
  }
  const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))?.[1];
  const fileType = success && !('$ref' in success) ? Object.keys(success.content ?? {}).find((type) => type !== 'application/json') : undefined;
  if (fileType) lines.push(`-o ${shellQuote(path.split('/').pop()!.includes('.') ? path.split('/').pop()! : 'download')}`);
  lines.push(shellQuote(url));
  return lines.join(' \\\n  ');
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** What the page shows, in the document's tag order, operations in the table's order. */
export function referenceOf(document: OpenApiDocument): ApiReference {
  const baseUrl = document.servers[0]?.url ?? '';
  const groups = new Map<string, ReferenceGroup>((document.tags ?? []).map((tag) => [tag.name, { tag: tag.name, description: tag.description ?? null, operations: [] }]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const methodKey of METHOD_ORDER) {
      const operation = item[methodKey];
      if (!operation) continue;
      const method = methodKey.toUpperCase();
      const access: ReferenceOperation['access'] = operation.security?.length === 0 ? 'public' : operation.security?.some((requirement) => Object.values(requirement).some((roles) => roles.includes('write'))) ? 'write' : 'read';
      const [status, success] = Object.entries(operation.responses).find(([code]) => code.startsWith('2')) ?? ['200', { description: '' }];
      const response = ('$ref' in success ? { description: '' } : success) as OpenApiResponse;
      const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [null, null];
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      const entry: ReferenceOperation = {
        id: operation.operationId,
        method,
        path,
        summary: operation.summary,
        description: operation.description ?? null,
        access,
        parameters: (operation.parameters ?? []).map(parameterField),
        requestFields: bodySchema ? fieldsOf(document, bodySchema) : null,
        response: { status, description: response.description, mediaType, fields: media && mediaType === 'application/json' ? fieldsOf(document, media.schema) : [] },
        errorStatuses: Object.keys(operation.responses).filter((code) => /^[45]/.test(code)),
        curl: curlOf(document, baseUrl, method, path, operation, access),
      };
      const tag = operation.tags[0] ?? 'API';
      if (!groups.has(tag)) groups.set(tag, { tag, description: null, operations: [] });
      groups.get(tag)!.operations.push(entry);
    }
  }
  const errors = Object.entries(document.components.responses)
    .map(([name, response]) => ({ status: statusOfResponse(document, name), description: response.description }))
    .sort((a, b) => a.status.localeCompare(b.status));
  return { baseUrl, version: document.info.version, groups: [...groups.values()].filter((group) => group.operations.length > 0), errors };
}

/** The status a shared error response is used for (its name says it only in English). */
function statusOfResponse(document: OpenApiDocument, name: string): string {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation!.responses)) if ('$ref' in response && response.$ref === `#/components/responses/${name}`) return status;
    }
  }
  return name;
}

/** Inline code in the document's texts (`cursor`) as parts the page renders as text and <code>; never as HTML. */
export function textParts(text: string): { code: boolean; text: string }[] {
  return text.split('`').map((part, index) => ({ code: index % 2 === 1, text: part })).filter((part) => part.text !== '');
}
