/**
 * Comment anchors: a passage of the page held as two Yjs relative positions, so it follows the
 * text while others type before, inside or after it, and comes back as a ProseMirror range in
 * any client's editor (or is reported deleted once its text is gone).
 *
 * ProseMirror positions and Yjs positions are mapped through the collaboration binding's own
 * mapping (`ySyncPluginKey` of `@tiptap/y-tiptap`), the way its remote carets are. No DOM: the
 * editor passes its state, the tests a document built from a Y.Doc (`initProseMirrorDoc`).
 */
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import type { EditorState } from '@tiptap/pm/state';
import { absolutePositionToRelativePosition, relativePositionToAbsolutePosition, ySyncPluginKey } from '@tiptap/y-tiptap';
import * as Y from 'yjs';
import type { CommentAnchor } from './commentViews.ts';

/** The quote's limit in the contract; a longer selection keeps its beginning. */
export const QUOTE_MAX_CHARS = 500;

/** Yjs types to the nodes they render as (y-tiptap's `ProsemirrorMapping`, which its entry point does not export). */
type ProsemirrorMapping = Parameters<typeof relativePositionToAbsolutePosition>[3];

/** What maps positions between the editor's document and the shared Yjs fragment. */
export interface YjsBinding {
  ydoc: Y.Doc;
  fragment: Y.XmlFragment;
  mapping: ProsemirrorMapping;
}

export type ResolvedAnchor = { status: 'found'; from: number; to: number } | { status: 'deleted' };

/** The binding of an editor with Tiptap's Collaboration extension; null before it is set up. */
export function yjsBindingOf(state: EditorState): YjsBinding | null {
  const syncState = ySyncPluginKey.getState(state) as { doc?: Y.Doc; type?: Y.XmlFragment; binding?: { mapping: ProsemirrorMapping } } | undefined;
  if (!syncState?.doc || !syncState.type || !syncState.binding || syncState.binding.mapping.size === 0) return null;
  return { ydoc: syncState.doc, fragment: syncState.type, mapping: syncState.binding.mapping };
}

/** The passage's plain text as a quote shows it: blocks joined by spaces, runs of white space as one. */
export function quoteOf(doc: ProseMirrorNode, from: number, to: number): string {
  return doc.textBetween(from, to, ' ', ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The anchor of the range `from`–`to` of `doc` (the editor's current document), or null when
 * the range holds no text to quote. The start sticks to the passage's first character and the
 * end to its last, so text another client types right before or right after it stays outside.
 */
export function createAnchor(binding: YjsBinding, doc: ProseMirrorNode, from: number, to: number): CommentAnchor | null {
  if (to <= from) return null;
  const quote = quoteOf(doc, from, to);
  if (quote === '') return null;
  // y-tiptap's positions lean left (assoc -1); the start is moved to lean right onto the passage.
  const start = leaningRight(binding.ydoc, absolutePositionToRelativePosition(from, binding.fragment, binding.mapping) as Y.RelativePosition);
  const end = absolutePositionToRelativePosition(to, binding.fragment, binding.mapping) as Y.RelativePosition;
  return { from: encodePosition(start), to: encodePosition(end), quote: quote.slice(0, QUOTE_MAX_CHARS) };
}

/**
 * Where the anchor's passage is now in `doc`: its range, or `deleted` when its text is gone (both
 * ends meet, the text between them is empty, or the block holding an end was deleted). An
 * anchor that cannot be read at all counts as deleted too: its passage cannot be shown.
 */
export function resolveAnchor(binding: YjsBinding, doc: ProseMirrorNode, anchor: CommentAnchor): ResolvedAnchor {
  const from = resolvePosition(binding, anchor.from);
  const to = resolvePosition(binding, anchor.to);
  if (from === null || to === null) return { status: 'deleted' };
  const size = doc.content.size;
  const start = Math.min(Math.max(from, 0), size);
  const end = Math.min(Math.max(to, 0), size);
  if (end <= start || quoteOf(doc, start, end) === '') return { status: 'deleted' };
  return { status: 'found', from: start, to: end };
}

function resolvePosition(binding: YjsBinding, encoded: string): number | null {
  let position: Y.RelativePosition;
  try {
    position = Y.decodeRelativePosition(decodeBase64(encoded));
  } catch {
    return null;
  }
  const absolute = Y.createAbsolutePositionFromRelativePosition(position, binding.ydoc);
  // A position inside a deleted block resolves to a stale place; its passage is gone.
  if (absolute === null || liesInDeletedType(absolute.type)) return null;
  // Handed to y-tiptap in the left-leaning form it makes itself: it takes a right-leaning text
  // position at the document's very start for a misresolved one (`isMisresolvedTextPosition`).
  const leaningLeft = Y.createRelativePositionFromTypeIndex(absolute.type, absolute.index, -1);
  return relativePositionToAbsolutePosition(binding.ydoc, binding.fragment, leaningLeft, binding.mapping);
}

/** The same place, attached to the character after it instead of the one before. */
function leaningRight(ydoc: Y.Doc, position: Y.RelativePosition): Y.RelativePosition {
  const absolute = Y.createAbsolutePositionFromRelativePosition(position, ydoc);
  if (absolute === null) return position;
  return Y.createRelativePositionFromTypeIndex(absolute.type, absolute.index, 0);
}

function liesInDeletedType(type: Y.AbstractType<unknown>): boolean {
  for (let item = type._item; item !== null; item = (item.parent as Y.AbstractType<unknown>)._item) {
    if (item.deleted) return true;
  }
  return false;
}

function encodePosition(position: Y.RelativePosition): string {
  let binary = '';
  for (const byte of Y.encodeRelativePosition(position)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodeBase64(encoded: string): Uint8Array {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
