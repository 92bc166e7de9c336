/**
 * The commented passages, highlighted with ProseMirror decorations: nothing is written into the
 * shared document, so comments never change the page or its history.
 *
 * The ranges are resolved from the anchors (commentAnchors.ts) when the thread list changes and
 * when another client's edit arrives (the binding's mapping is current then); a local edit only
 * maps them, and a full resolution follows a moment later, once the binding has written the
 * edit to Yjs, the way y-tiptap's own remote carets keep up. Each resolution reports which
 * passages are gone, for the panel's "passage deleted".
 */
import { Extension } from '@tiptap/core';
import { Plugin, PluginKey, type EditorState } from '@tiptap/pm/state';
import { Decoration, DecorationSet, type EditorView } from '@tiptap/pm/view';
import { ySyncPluginKey } from '@tiptap/y-tiptap';
import { resolveAnchor, yjsBindingOf } from './commentAnchors.ts';
import type { AnchoredThread, AnchorState } from './commentThreadsModel.ts';

/** How long after a local edit the passages are resolved again. */
const SETTLE_MS = 250;

export interface CommentHighlightOptions {
  /** Hears where every anchored thread's passage stands after each resolution. */
  onResolved: (states: Record<string, AnchorState>) => void;
  /** A highlighted passage was clicked: its thread (the innermost one where passages nest). */
  onActivate: (threadId: string) => void;
}

interface HighlightState {
  threads: AnchoredThread[];
  activeId: string | null;
  decorations: DecorationSet;
  states: Record<string, AnchorState>;
  /** Mapped through a local edit since the last resolution. */
  stale: boolean;
}

interface HighlightMeta {
  threads?: AnchoredThread[];
  activeId?: string | null;
}

const highlightsKey = new PluginKey<HighlightState>('commentHighlights');

function resolveAll(state: EditorState, threads: AnchoredThread[], activeId: string | null): Pick<HighlightState, 'decorations' | 'states'> {
  const binding = yjsBindingOf(state);
  if (!binding) return { decorations: DecorationSet.empty, states: {} };
  const decorations: Decoration[] = [];
  const states: Record<string, AnchorState> = {};
  for (const thread of threads) {
    const resolved = resolveAnchor(binding, state.doc, thread.anchor);
    states[thread.id] = resolved.status;
    // A resolved thread's passage is marked only while it is the current one (shown from the panel).
    if (resolved.status !== 'found' || (thread.resolved && thread.id !== activeId)) continue;
    const active = thread.id === activeId;
    decorations.push(
      Decoration.inline(resolved.from, resolved.to, { class: active ? 'comment-highlight comment-highlight-active' : 'comment-highlight', 'data-comment-id': thread.id }, { threadId: thread.id }),
    );
  }
  return { decorations: DecorationSet.create(state.doc, decorations), states };
}

function sameStates(left: Record<string, AnchorState> | null, right: Record<string, AnchorState>): boolean {
  if (!left) return false;
  const keys = Object.keys(right);
  return keys.length === Object.keys(left).length && keys.every((key) => left[key] === right[key]);
}

/** The innermost highlighted thread at `position`, if any. */
export function highlightedThreadAt(state: EditorState, position: number): string | null {
  const found = highlightsKey.getState(state)?.decorations.find(position, position) ?? [];
  const innermost = found.sort((left, right) => left.to - left.from - (right.to - right.from))[0];
  return (innermost?.spec as { threadId?: string } | undefined)?.threadId ?? null;
}

/** Shows these threads' passages, `activeId` marked as the current one. */
export function showCommentHighlights(view: EditorView, threads: AnchoredThread[], activeId: string | null): void {
  view.dispatch(view.state.tr.setMeta(highlightsKey, { threads, activeId } satisfies HighlightMeta));
}

function highlightPlugin(options: CommentHighlightOptions): Plugin<HighlightState> {
  return new Plugin<HighlightState>({
    key: highlightsKey,
    state: {
      init: () => ({ threads: [], activeId: null, decorations: DecorationSet.empty, states: {}, stale: false }),
      apply(tr, value, _oldState, newState) {
        const meta = tr.getMeta(highlightsKey) as HighlightMeta | undefined;
        const remote = (tr.getMeta(ySyncPluginKey) as { isChangeOrigin?: boolean } | undefined)?.isChangeOrigin === true;
        if (meta || remote) {
          const threads = meta?.threads ?? value.threads;
          const activeId = meta && meta.activeId !== undefined ? meta.activeId : value.activeId;
          return { threads, activeId, ...resolveAll(newState, threads, activeId), stale: false };
        }
        if (!tr.docChanged) return value;
        return { ...value, decorations: value.decorations.map(tr.mapping, tr.doc), stale: true };
      },
    },
    props: {
      decorations: (state) => highlightsKey.getState(state)?.decorations,
      handleClick(view, position) {
        const threadId = highlightedThreadAt(view.state, position);
        if (threadId) options.onActivate(threadId);
        // The click still places the caret.
        return false;
      },
    },
    view() {
      let settle: ReturnType<typeof setTimeout> | null = null;
      let reported: Record<string, AnchorState> | null = null;
      return {
        update(view) {
          const value = highlightsKey.getState(view.state)!;
          if (!sameStates(reported, value.states)) {
            reported = value.states;
            options.onResolved(value.states);
          }
          if (!value.stale || settle) return;
          settle = setTimeout(() => {
            settle = null;
            if (!view.isDestroyed) view.dispatch(view.state.tr.setMeta(highlightsKey, {} satisfies HighlightMeta));
          }, SETTLE_MS);
        },
        destroy() {
          if (settle) clearTimeout(settle);
        },
      };
    },
  });
}

export const CommentHighlights = Extension.create<CommentHighlightOptions>({
  name: 'commentHighlights',
  addOptions() {
    return { onResolved: () => undefined, onActivate: () => undefined };
  },
  addProseMirrorPlugins() {
    return [highlightPlugin(this.options)];
  },
});
