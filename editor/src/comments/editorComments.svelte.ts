/**
 * The page editor's part in comments, apart from its collaboration work (PageEditor.svelte):
 * the selection becomes the passage of a new comment (the toolbar's Comment button, or Mod-Alt-M
 * wherever the focus is while the selection is in the page), the form under the toolbar is sent
 * or closed, and a quote chosen in the side panel selects its passage in the text.
 */
import type { Editor } from '@tiptap/core';
import { createAnchor, resolveAnchor, yjsBindingOf } from './commentAnchors.ts';
import { highlightedThreadAt } from './commentHighlights.ts';
import type { CommentAnchor } from './commentViews.ts';
import type { PageComments } from './pageComments.svelte.ts';

export class EditorComments {
  /** The passage the comment form under the toolbar is about. */
  newComment = $state<CommentAnchor | null>(null);
  readonly #comments: PageComments;
  readonly #editor: () => Editor | null;
  readonly #editable: () => boolean;
  #handledPassageRequest = 0;

  constructor(comments: PageComments, editor: () => Editor | null, editable: () => boolean) {
    this.#comments = comments;
    this.#editor = editor;
    this.#editable = editable;
  }

  /** The selection becomes the passage of a new comment; an empty one inside a highlight goes to its thread. */
  open = (): void => {
    const editor = this.#editor();
    if (!editor || !this.#comments.canComment) return;
    const { state } = editor;
    const { from, to, empty } = state.selection;
    if (empty) {
      const threadId = highlightedThreadAt(state, from);
      if (threadId) this.#comments.showThread(threadId, true);
      return;
    }
    const binding = yjsBindingOf(state);
    this.newComment = binding ? createAnchor(binding, state.doc, from, to) : null;
  };

  send = async (body: string): Promise<void> => {
    if (!this.newComment) return;
    const created = await this.#comments.create({ body, anchor: this.newComment });
    this.newComment = null;
    // Writers go on writing; readers, whose text takes no focus, land on the new thread.
    const editable = this.#editable();
    this.#comments.showThread(created.id, !editable);
    if (editable) this.#editor()?.commands.focus();
  };

  close = (): void => {
    this.newComment = null;
    if (this.#editable()) this.#editor()?.commands.focus();
  };

  /** A quote chosen in the panel: its passage selected and scrolled to, once per request. */
  followPassageRequest(): void {
    const request = this.#comments.passageRequest;
    if (!request || request.seq <= this.#handledPassageRequest) return;
    this.#handledPassageRequest = request.seq;
    this.#showPassage(request.threadId);
  }

  /** Mod-Alt-M comments on the selection, wherever the focus is, as long as the selection is in the page. */
  onKeydown = (event: KeyboardEvent): void => {
    const editor = this.#editor();
    if (event.code !== 'KeyM' || !event.altKey || !(event.ctrlKey || event.metaKey) || event.shiftKey || !editor) return;
    const selection = document.getSelection();
    if (!editor.view.hasFocus() && !(selection?.anchorNode && editor.view.dom.contains(selection.anchorNode))) return;
    event.preventDefault();
    this.open();
  };

  #showPassage(threadId: string): void {
    const editor = this.#editor();
    const anchor = this.#comments.anchored.find((thread) => thread.id === threadId)?.anchor;
    const binding = editor && yjsBindingOf(editor.state);
    if (!editor || !anchor || !binding) return;
    const resolved = resolveAnchor(binding, editor.state.doc, anchor);
    if (resolved.status !== 'found') return;
    editor.chain().setTextSelection({ from: resolved.from, to: resolved.to }).scrollIntoView().run();
    if (this.#editable()) editor.commands.focus();
    else editor.view.domAtPos(resolved.from).node.parentElement?.scrollIntoView({ block: 'center' });
  }
}
