/**
 * The extensions of the page editor: the document schema's own list (content-pipeline), with
 * the link nodes (linkNodeViews.ts), plugin blocks and images (blockNodeViews.ts) given views,
 * plus collaboration (the Yjs binding with its undo manager, so
 * undo only takes back this person's changes; StarterKit's own history is off in the shared
 * list), the others' carets and the empty page's placeholder (its text from prosemirror.css's
 * rule, as the CSP forbids the style element Tiptap would add).
 */
import type { AnyExtension } from '@tiptap/core';
import Collaboration from '@tiptap/extension-collaboration';
import { Placeholder } from '@tiptap/extensions/placeholder';
import type { HocuspocusProvider } from '@hocuspocus/provider';
import type * as Y from 'yjs';
import { documentExtensions, YJS_FRAGMENT_NAME } from '../../../content-pipeline/browser.ts';
import { imageWithView, pluginBlockWithView } from './blockNodeViews.ts';
import { transclusionWithView, wikilinkWithView, type LinkViewContext } from './linkNodeViews.ts';
import { PresenceCarets, type PresenceUser } from './presenceCarets.ts';

export interface EditorSetup {
  ydoc: Y.Doc;
  provider: HocuspocusProvider;
  user: PresenceUser;
  links: LinkViewContext;
  /** What an empty page says, for someone who may write in it or not. */
  placeholder: (editable: boolean) => string;
  /** Editor-only additions (suggestions, paste handling). */
  extra: AnyExtension[];
}

export function pageEditorExtensions(setup: EditorSetup): AnyExtension[] {
  const withViews = new Map<string, AnyExtension>([
    ['wikilink', wikilinkWithView(setup.links)],
    ['transclusion', transclusionWithView(setup.links)],
    ['plugin_block', pluginBlockWithView(setup.links.t)],
    ['image', imageWithView(documentExtensions.find((extension) => extension.name === 'image')!)],
  ]);
  return [
    ...documentExtensions.map((extension) => withViews.get(extension.name) ?? extension),
    Collaboration.configure({ document: setup.ydoc, field: YJS_FRAGMENT_NAME }),
    // Shown to readers too, and re-read when the editor turns read-only (a downgrade). It is a
    // decoration only, so the shared Yjs document never holds it.
    Placeholder.configure({ placeholder: ({ editor }) => setup.placeholder(editor.isEditable), showOnlyWhenEditable: false }),
    PresenceCarets.configure({ awareness: setup.provider.awareness, user: setup.user, visitorName: setup.links.t('editor.presence.visitor') }),
    ...setup.extra,
  ];
}
