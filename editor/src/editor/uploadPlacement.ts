/**
 * Where an uploaded file goes into the text, and as what. The place is taken when the upload
 * starts (the caret, or where a file was dropped) and held as a Yjs relative position, the way
 * comment anchors are (commentAnchors.ts): ProseMirror positions do not survive the
 * collaboration binding's remote updates, which replace the whole document, while a relative
 * position follows the text others type meanwhile. Without a binding (not synced yet) the
 * plain position is kept.
 */
import type { Editor, JSONContent } from '@tiptap/core';
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import type { EditorState } from '@tiptap/pm/state';
import { absolutePositionToRelativePosition, relativePositionToAbsolutePosition } from '@tiptap/y-tiptap';
import type * as Y from 'yjs';
import { yjsBindingOf } from '../comments/commentAnchors.ts';
import { mediaHref, nameWithoutExtension, showsAsImage, type FileView } from '../files/fileViews.ts';

export interface UploadPlace {
  relative: Y.RelativePosition | null;
  /** The position when the place was taken: used when there is no binding to ask. */
  position: number;
}

export function placeAt(state: EditorState, position: number): UploadPlace {
  const binding = yjsBindingOf(state);
  const relative = binding ? (absolutePositionToRelativePosition(position, binding.fragment, binding.mapping) as Y.RelativePosition) : null;
  return { relative, position };
}

/** The place's position in the current document; the end of the text when it cannot be found. */
export function positionOf(state: EditorState, place: UploadPlace): number {
  const size = state.doc.content.size;
  const binding = yjsBindingOf(state);
  const found = binding && place.relative ? relativePositionToAbsolutePosition(binding.ydoc, binding.fragment, place.relative, binding.mapping) : place.relative ? null : place.position;
  return found === null ? size : Math.min(Math.max(found, 0), size);
}

/**
 * A raster image becomes an image node (its alt text the file's name until someone describes
 * it); any other file, SVG included, its name linked to the file, then a space, so the next
 * one does not run into it, and a space before it when it would run into a word.
 */
export function contentFor(file: FileView, options: { spaceBefore?: boolean } = {}): JSONContent[] {
  if (showsAsImage(file)) return [{ type: 'image', attrs: { fileId: file.id, alt: nameWithoutExtension(file.name), title: null } }];
  return [
    ...(options.spaceBefore ? [{ type: 'text', text: ' ' }] : []),
    { type: 'text', text: file.name, marks: [{ type: 'link', attrs: { href: mediaHref(file.id) } }] },
    { type: 'text', text: ' ' },
  ];
}

/** Whether the character before `position` is one a link would run into (not a space, not a block's start). */
export function followsWord(doc: ProseMirrorNode, position: number): boolean {
  const $position = doc.resolve(position);
  if (!$position.parent.isTextblock || $position.parentOffset === 0) return false;
  return !/\s/.test($position.parent.textBetween($position.parentOffset - 1, $position.parentOffset, undefined, '\ufffc'));
}

/**
 * Inserts the file at the place and returns the place right after it, for the next file of the
 * same paste or drop. The selection stays where the person is (they may have typed on meanwhile).
 */
export function insertUploaded(editor: Editor, place: UploadPlace, file: FileView): UploadPlace {
  const at = positionOf(editor.state, place);
  let end = at;
  editor
    .chain()
    .insertContentAt(at, contentFor(file, { spaceBefore: followsWord(editor.state.doc, at) }), { updateSelection: false })
    .command(({ tr }) => {
      // Where the insertion ended: what Tiptap's own selectionToInsertionEnd reads.
      tr.mapping.maps[tr.mapping.maps.length - 1]?.forEach((_from, _to, _newFrom, newTo) => (end = newTo));
      return true;
    })
    .run();
  return placeAt(editor.state, Math.min(end, editor.state.doc.content.size));
}
