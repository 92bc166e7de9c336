/**
 * Files pasted or dropped into the text are handed to `onFiles` with the position they go to:
 * the selection's end for a paste, the point under the pointer for a drop. ProseMirror asks
 * these handlers only while the editor is editable, so readers' editors upload nothing.
 */
import { Extension, type Editor } from '@tiptap/core';
import { Plugin, PluginKey } from '@tiptap/pm/state';

export interface FileDropOptions {
  onFiles: ((editor: Editor, files: File[], position: number) => void) | null;
}

/**
 * The files a paste carries, unless it carries text: Word, LibreOffice and spreadsheets put a
 * picture of the copied passage on the clipboard next to its text, and that paste means the text.
 */
export function pastedFiles(data: DataTransfer | null): File[] {
  if (!data || data.files.length === 0) return [];
  if (data.types.includes('text/rtf') || data.getData('text/plain').trim() !== '') return [];
  return Array.from(data.files);
}

export const FileDrop = Extension.create<FileDropOptions>({
  name: 'fileDrop',
  // Before the Markdown paste (editorAdditions.ts), which would take the clipboard's text.
  priority: 200,

  addOptions() {
    return { onFiles: null };
  },

  addProseMirrorPlugins() {
    const { editor, options } = this;
    return [
      new Plugin({
        key: new PluginKey('fileDrop'),
        props: {
          handlePaste(view, event) {
            const files = pastedFiles(event.clipboardData);
            if (files.length === 0 || !options.onFiles) return false;
            options.onFiles(editor, files, view.state.selection.to);
            return true;
          },
          handleDrop(view, event, _slice, moved) {
            const files = moved ? [] : Array.from(event.dataTransfer?.files ?? []);
            if (files.length === 0 || !options.onFiles) return false;
            event.preventDefault();
            const position = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos ?? view.state.selection.to;
            options.onFiles(editor, files, position);
            return true;
          },
        },
      }),
    ];
  },
});
