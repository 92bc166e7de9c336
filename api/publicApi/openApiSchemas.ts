/**
 * The routes' zod schemas as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), by zod's own
 * `z.toJSONSchema` over a registry, the way zod documents for schemas that refer to each other:
 * every schema named with `.meta({ id })` becomes one entry of `components.schemas` and is
 * referred to by `$ref`, never copied (no `$defs` in the document).
 *
 * Requests and responses are converted apart: a request is described as a client writes it
 * (`io: 'input'`: defaults optional, coercions and transforms by their input), an answer as the
 * server sends it (`io: 'output'`). A named schema whose two forms differ gets a second
 * component `<id>Input` for the request side.
 */
import { z } from 'zod';

export type JsonSchema = { [keyword: string]: unknown };
export type SchemaDirection = 'input' | 'output';

export const COMPONENT_PREFIX = '#/components/schemas/';
/** Where zod puts schemas that are reused in a cycle but have no id (`__shared`); they get a component each. */
const SHARED = '__shared';

/** A `$ref` to a component. */
export function componentRef(name: string): JsonSchema {
  return { $ref: `${COMPONENT_PREFIX}${name}` };
}

/**
 * Collects the schemas one document needs, then converts them together. `add` hands out a key;
 * after `convert`, `schemaOf(key)` is the schema to put into the document (a `$ref` when the
 * schema has an id) and `candidates` the schemas components may refer to.
 */
export class SchemaConversion {
  private readonly keys = new Map<z.ZodType, string>();
  private readonly byKey = new Map<string, z.ZodType>();
  private converted: Map<string, JsonSchema> | null = null;
  readonly direction: SchemaDirection;

  constructor(direction: SchemaDirection) {
    this.direction = direction;
  }

  /** `key` names the schema if it has no id of its own (e.g. `postPagesBody`); one schema used twice keeps its first key. */
  add(schema: z.ZodType, key: string): string {
    const known = this.keys.get(schema) ?? globalId(schema);
    if (known) {
      this.keys.set(schema, known);
      this.byKey.set(known, schema);
      return known;
    }
    if (this.byKey.has(key)) throw new Error(`Two schemas share the key ${key}`);
    this.keys.set(schema, key);
    this.byKey.set(key, schema);
    return key;
  }

  convert(): void {
    const registry = z.registry<{ id: string }>();
    // Every schema with an id goes in, so a nested one becomes a `$ref` to its component; the
    // document drops the components nothing refers to (openApiDocument.ts).
    for (const [id, schema] of z.globalRegistry._idmap) registry.add(schema, { id });
    for (const [key, schema] of this.byKey) if (!registry.has(schema)) registry.add(schema, { id: key });
    const { schemas } = z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io: this.direction,
      // A refinement or transform has no JSON Schema; the schema then says what zod can say (the input or output type) instead of throwing.
      unrepresentable: 'any',
      uri: (id) => `${COMPONENT_PREFIX}${id}`,
    }) as { schemas: Record<string, JsonSchema> };
    const converted = new Map<string, JsonSchema>();
    for (const [id, schema] of Object.entries(schemas)) {
      if (id === SHARED) {
        for (const [defId, def] of Object.entries((schema.$defs ?? {}) as Record<string, JsonSchema>)) converted.set(sharedName(defId), rewriteRefs(def, sharedRef));
        continue;
      }
      const { $schema: _dialect, $id: _uri, ...rest } = schema;
      converted.set(id, rewriteRefs(rest, sharedRef));
    }
    this.converted = converted;
  }

  /** The schema for the document: a `$ref` for a named schema, else the converted schema itself. */
  schemaOf(key: string): JsonSchema {
    const converted = this.converted?.get(key);
    if (!converted) throw new Error(`No converted schema under ${key}`);
    const schema = this.byKey.get(key);
    return schema && globalId(schema) ? componentRef(key) : converted;
  }

  /**
   * Every converted schema by name: the named ones, cycles zod had to share, and the keyed ones
   * (in case one route's schema is nested in another's and so referred to). The document keeps
   * those its operations reach.
   */
  candidates(): Map<string, JsonSchema> {
    if (!this.converted) throw new Error('convert() first');
    return this.converted;
  }
}

function globalId(schema: z.ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.id;
}

function sharedName(defId: string): string {
  return `Shared.${defId.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/** zod writes a shared schema's ref as `<uri of __shared>#/$defs/<id>`; here it is a component of its own. */
function sharedRef(ref: string): string {
  const prefix = `${COMPONENT_PREFIX}${SHARED}#/$defs/`;
  return ref.startsWith(prefix) ? `${COMPONENT_PREFIX}${sharedName(decodeURIComponent(ref.slice(prefix.length)))}` : ref;
}

/** A copy of `value` with every `$ref` string passed through `rewrite`. */
export function rewriteRefs<T>(value: T, rewrite: (ref: string) => string): T {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rewrite)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = key === '$ref' && typeof item === 'string' ? rewrite(item) : rewriteRefs(item, rewrite);
  return copy as T;
}

/** The component names `value` refers to. */
export function collectRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith(COMPONENT_PREFIX)) into.add(item.slice(COMPONENT_PREFIX.length));
      else collectRefs(item, into);
    }
  }
  return into;
}
