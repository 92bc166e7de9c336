/**
 * The reference page's reading of the OpenAPI document: every operation of the real document
 * appears once under its tag, with its parameters, fields and a curl line a reader can paste.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../../../api/publicApi/openApiDocument.ts';
import { fieldsOf, referenceOf, textParts, typeLabel } from './apiReference.ts';

const document = buildOpenApiDocument({ serverUrl: 'https://teich.example.org' });
const reference = referenceOf(document);
const operations = reference.groups.flatMap((group) => group.operations);
const byId = (id: string) => operations.find((operation) => operation.id === id)!;

test('every operation of the document appears once, grouped by its tag in the document’s tag order', () => {
  const inDocument = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation!.operationId));
  assert.deepEqual(operations.map((operation) => operation.id).sort(), [...inDocument].sort());
  assert.deepEqual(
    reference.groups.map((group) => group.tag),
    document.tags.map((tag) => tag.name),
  );
  assert.equal(reference.baseUrl, 'https://teich.example.org/api/public/v1');
  assert.ok(reference.errors.some((error) => error.status === '429' && /rate_limited/.test(error.description)));
});

test('an operation shows its parameters, body and answer fields, and who may call it', () => {
  const list = byId('getPondsByPondSlugPages');
  assert.equal(list.method, 'GET');
  assert.equal(list.path, '/ponds/{pondSlug}/pages');
  assert.equal(list.access, 'read');
  const pondSlug = list.parameters.find((parameter) => parameter.name === 'pondSlug')!;
  assert.deepEqual([pondSlug.location, pondSlug.required, pondSlug.type], ['path', true, 'string']);
  const limit = list.parameters.find((parameter) => parameter.name === 'limit')!;
  assert.equal(limit.location, 'query');
  assert.ok(limit.constraints.some((constraint) => constraint.kind === 'default'));
  assert.ok(list.response.fields.some((field) => field.name === 'items[].parent' && field.type === 'string | null'));
  assert.ok(list.response.fields.some((field) => field.name === 'nextCursor'));

  const create = byId('postPondsByPondSlugPages');
  assert.equal(create.access, 'write');
  assert.equal(create.response.status, '201');
  assert.ok(create.requestFields!.some((field) => field.name === 'title' && field.required));
  assert.ok(create.errorStatuses.includes('409'));
  assert.match(create.curl, /^curl \\\n {2}-X POST \\\n {2}-H "Authorization: Bearer \$DORFTEICH_TOKEN" \\\n {2}-H 'Content-Type: application\/json' \\\n {2}-d '\{"title":"Example"\}' \\\n {2}'https:\/\/teich\.example\.org\/api\/public\/v1\/ponds\/POND_SLUG\/pages'$/);

  const openApi = byId('getOpenapiJson');
  assert.equal(openApi.access, 'public');
  assert.ok(!openApi.curl.includes('Authorization'));
});

test('a file answer downloads to a file; a recursive schema is listed once', () => {
  const exportZip = operations.find((operation) => operation.path.endsWith('/export.zip'));
  if (exportZip) {
    assert.equal(exportZip.response.mediaType, 'application/zip');
    assert.match(exportZip.curl, /-o 'export\.zip'/);
  }
  const tree = { $ref: '#/components/schemas/Node' };
  const recursive = {
    ...document,
    components: { ...document.components, schemas: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: tree } }, required: ['name'] } } },
  };
  assert.deepEqual(
    fieldsOf(recursive, tree).map((field) => `${field.name}: ${field.type}`),
    ['name: string', 'children: Node[]'],
  );
});

test('type labels and inline code', () => {
  assert.equal(typeLabel({ type: 'string', format: 'uuid' }), 'string (uuid)');
  assert.equal(typeLabel({ type: ['string', 'null'] }), 'string | null');
  assert.equal(typeLabel({ type: 'string', enum: ['markdown', 'html'] }), 'markdown | html');
  assert.equal(typeLabel({ anyOf: [{ $ref: '#/components/schemas/Page' }, { type: 'null' }] }), 'Page | null');
  assert.deepEqual(textParts('pass `nextCursor` as `cursor`'), [
    { code: false, text: 'pass ' },
    { code: true, text: 'nextCursor' },
    { code: false, text: ' as ' },
    { code: true, text: 'cursor' },
  ]);
});
