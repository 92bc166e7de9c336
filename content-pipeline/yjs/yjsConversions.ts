/**
 * Document JSON ↔ Yjs, so the collaboration server and imports can go Markdown → Yjs and
 * Yjs → HTML/Markdown. The document lives in the XML fragment the Tiptap Collaboration
 * extension uses by default ('default'); a different name would show an empty editor.
 *
 * Attribute values are stored as they are: Yjs keeps any JSON value in an XML element's
 * attributes (not only strings), so a plugin block's `data` object survives without encoding
 * (yjsConversions.test.ts proves it through a binary update). Attributes that are null are not
 * stored and come back as the schema default, which for all our nullable attributes is null.
 */
import type { JSONContent } from '@tiptap/core';
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import { prosemirrorToYDoc } from '@tiptap/y-tiptap';
import * as Y from 'yjs';
import { documentSchema, EMPTY_DOCUMENT, type DocumentJson } from '../schema/documentSchema.ts';

/** The fragment Tiptap's Collaboration extension binds to unless configured otherwise. */
export const YJS_FRAGMENT_NAME = 'default';

/**
 * Marks on inline nodes that are not text (a bold wikilink, a linked mention) have no place in
 * y-tiptap 3.0.9's mapping, which keeps marks only as Y.XmlText formatting and drops them
 * elsewhere (yjs/y-prosemirror#47). We store them as `__mark_<name>` attributes holding the
 * mark's attrs, the encoding proposed for y-tiptap itself (ueberdosis/y-tiptap#37). The
 * live editor with y-tiptap 3.0.9 ignores these attributes and drops them when it rewrites
 * the node; the server-side conversions here keep them.
 */
const NODE_MARK_PREFIX = '__mark_';

/** An element's attributes hold any JSON value, not only the strings Yjs's default typing says. */
type JsonAttributes = Record<string, object | string | number | null>;

/** y-prosemirror names overlapping marks `<name>--<hash>` in text formatting. */
const HASHED_MARK_NAME = /^(.*)--[a-zA-Z0-9+/=]{8}$/;

/** A fresh Y.Doc holding the document. Throws when the JSON is not a valid document. */
export function documentToYDoc(doc: DocumentJson): Y.Doc {
  const node = documentSchema.nodeFromJSON(doc);
  const ydoc = prosemirrorToYDoc(node, YJS_FRAGMENT_NAME);
  ydoc.transact(() => addNodeMarks(node, ydoc.getXmlFragment(YJS_FRAGMENT_NAME)));
  return ydoc;
}

/**
 * Walks the ProseMirror node beside the Y type y-tiptap just built from it: a run of text
 * nodes became one Y.XmlText, every other node one Y.XmlElement.
 */
function addNodeMarks(node: ProseMirrorNode, yParent: Y.XmlElement<JsonAttributes> | Y.XmlFragment): void {
  if (node.isTextblock && !hasMarkedInlineNode(node)) return;
  let yIndex = 0;
  let inTextRun = false;
  node.forEach((child) => {
    if (child.isText) {
      if (!inTextRun) yIndex += 1;
      inTextRun = true;
      return;
    }
    inTextRun = false;
    const yChild: unknown = yParent.get(yIndex);
    yIndex += 1;
    if (!(yChild instanceof Y.XmlElement)) return;
    const yElement = yChild as Y.XmlElement<JsonAttributes>;
    for (const mark of child.marks) yElement.setAttribute(`${NODE_MARK_PREFIX}${mark.type.name}`, { ...mark.attrs });
    if (child.childCount > 0) addNodeMarks(child, yElement);
  });
}

function hasMarkedInlineNode(textblock: ProseMirrorNode): boolean {
  let found = false;
  textblock.forEach((child) => {
    if (!child.isText && child.marks.length > 0) found = true;
  });
  return found;
}

/**
 * The document a Y.Doc holds, as schema-normalized plain JSON (every attribute present, marks
 * in schema order): the form `documentSchema.nodeFromJSON(doc).toJSON()` gives. Throws when
 * the Y.Doc holds content our schema does not allow.
 */
export function yDocToDocument(ydoc: Y.Doc): DocumentJson {
  const fragment = ydoc.getXmlFragment(YJS_FRAGMENT_NAME);
  // A page nobody has typed into yet has an empty fragment; the schema wants one block.
  if (fragment.length === 0) return structuredClone(EMPTY_DOCUMENT);
  const json: JSONContent = { type: 'doc', content: fragment.toArray().flatMap(yTypeToJson) };
  return withPlainAttrs(documentSchema.nodeFromJSON(json).toJSON() as JSONContent) as DocumentJson;
}

function yTypeToJson(item: Y.XmlElement | Y.XmlText | Y.XmlHook): JSONContent[] {
  if (item instanceof Y.XmlText) return item.toDelta().map(textDeltaToJson);
  if (!(item instanceof Y.XmlElement)) return [];
  const node: JSONContent = { type: item.nodeName };
  const attrs: Record<string, unknown> = {};
  const marks: NonNullable<JSONContent['marks']> = [];
  for (const [name, value] of Object.entries((item as Y.XmlElement<JsonAttributes>).getAttributes())) {
    if (name.startsWith(NODE_MARK_PREFIX)) marks.push({ type: name.slice(NODE_MARK_PREFIX.length), attrs: value as Record<string, unknown> | undefined });
    else attrs[name] = value;
  }
  node.attrs = attrs;
  if (marks.length > 0) node.marks = marks;
  if (item.length > 0) node.content = item.toArray().flatMap(yTypeToJson);
  return [node];
}

type TextDelta = { insert: string; attributes?: Record<string, Record<string, unknown>> };

function textDeltaToJson(delta: TextDelta): JSONContent {
  const node: JSONContent = { type: 'text', text: delta.insert };
  const formatting = Object.entries(delta.attributes ?? {});
  if (formatting.length > 0) node.marks = formatting.map(([name, attrs]) => ({ type: HASHED_MARK_NAME.exec(name)?.[1] ?? name, attrs }));
  return node;
}

/**
 * ProseMirror builds `attrs` as null-prototype objects; callers (and deepEqual) expect plain
 * JSON objects. Object values (plugin `data`) are the Y.Doc's own stored values, so they are
 * cloned: editing the result must not change the Y.Doc behind Yjs's back.
 */
function withPlainAttrs(node: JSONContent): JSONContent {
  if (node.attrs) {
    const attrs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(node.attrs)) attrs[name] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
    node.attrs = attrs;
  }
  for (const mark of node.marks ?? []) {
    if (mark.attrs) mark.attrs = { ...mark.attrs };
  }
  for (const child of node.content ?? []) withPlainAttrs(child);
  return node;
}

/** The document as one Yjs update, ready to store or to apply to an empty Y.Doc. */
export function documentToYjsUpdate(doc: DocumentJson): Uint8Array {
  const ydoc = documentToYDoc(doc);
  try {
    return Y.encodeStateAsUpdate(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/** The document held by a Yjs update (for example the stored state of a collaborative page). */
export function yjsUpdateToDocument(update: Uint8Array): DocumentJson {
  const ydoc = new Y.Doc();
  try {
    Y.applyUpdate(ydoc, update);
    return yDocToDocument(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/**
 * Replaces what a live Y.Doc holds by `doc`, in one transaction with `origin`: every client
 * bound to the Y.Doc converges on `doc` (a version restore goes through here). The old items
 * are deleted, not rewritten, so history stays append-only and concurrent inserts survive.
 */
export function replaceYDocContent(ydoc: Y.Doc, doc: DocumentJson, origin: unknown = null): void {
  const items = topLevelItemsOf(doc);
  ydoc.transact(() => {
    const fragment = ydoc.getXmlFragment(YJS_FRAGMENT_NAME);
    fragment.delete(0, fragment.length);
    fragment.insert(0, items);
  }, origin);
}

/**
 * Adds `doc`'s blocks after everything a live Y.Doc holds, in one transaction with `origin`
 * (an API append goes through here). Nothing is deleted or rewritten, so every existing node,
 * and whatever a peer typed concurrently, stays; Yjs orders two concurrent appends at the end
 * deterministically, so all peers converge on the same order.
 */
export function appendYDocContent(ydoc: Y.Doc, doc: DocumentJson, origin: unknown = null): void {
  const items = topLevelItemsOf(doc);
  ydoc.transact(() => {
    const fragment = ydoc.getXmlFragment(YJS_FRAGMENT_NAME);
    fragment.insert(fragment.length, items);
  }, origin);
}

/**
 * The document's top-level Yjs items, unattached: built in a scratch Y.Doc (so node marks are
 * encoded as `documentToYDoc` does) and cloned, because an item belongs to one Y.Doc.
 */
function topLevelItemsOf(doc: DocumentJson): (Y.XmlElement | Y.XmlText)[] {
  const scratch = documentToYDoc(doc);
  try {
    return scratch.getXmlFragment(YJS_FRAGMENT_NAME).toArray().map((item) => item.clone()) as (Y.XmlElement | Y.XmlText)[];
  } finally {
    scratch.destroy();
  }
}
