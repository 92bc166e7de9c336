/**
 * Other people's carets and selections, with their names, from the provider's awareness.
 *
 * A tiny extension around `yCursorPlugin` from `@tiptap/y-tiptap` instead of
 * `@tiptap/extension-collaboration-caret`: that package pins an older `@tiptap/core` than the
 * rest of our Tiptap. The builders here set classes, not the plugin's default inline `style`
 * attributes, which the CSP would block.
 *
 * The server binds every state's `user` to the connection (collab/extensions/presenceIdentity.ts):
 * a signed-in person's id and display name, or, for an anonymous reader, no id and the name
 * "Visitor", which the caret shows in the reader's language.
 */
import { Extension } from '@tiptap/core';
import { yCursorPlugin } from '@tiptap/y-tiptap';
import type { Awareness } from 'y-protocols/awareness';
import { presenceColourIndex } from './presenceColours.ts';

/** Hex colours of the palette (the plugin wants one in the state; the classes draw them). */
const PALETTE = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#b45309', '#0e7490', '#be185d', '#4d7c0f'];

export interface PresenceUser {
  id: string;
  name: string;
  color: string;
  colourIndex: number;
}

export function presenceUser(id: string, name: string): PresenceUser {
  const colourIndex = presenceColourIndex(id);
  return { id, name, color: PALETTE[colourIndex]!, colourIndex };
}

/** The name on a caret: a person's own, or the word for a visitor (a presence without an id). */
export function caretName(user: Partial<PresenceUser>, visitorName: string): string {
  return user.id ? (user.name ?? '') : visitorName;
}

function caretFor(user: Partial<PresenceUser>, visitorName: string): HTMLElement {
  const caret = document.createElement('span');
  caret.className = `presence-caret presence-colour-${user.colourIndex ?? 0}`;
  const label = document.createElement('span');
  label.className = 'presence-caret-name';
  label.textContent = caretName(user, visitorName);
  // Word joiners keep the caret from breaking a line, as the plugin's own builder does.
  caret.append('\u2060', label, '\u2060');
  return caret;
}

export const PresenceCarets = Extension.create<{ awareness: Awareness | null; user: PresenceUser | null; visitorName: string }>({
  name: 'presenceCarets',
  addOptions() {
    return { awareness: null, user: null, visitorName: 'Visitor' };
  },
  addProseMirrorPlugins() {
    const { awareness, user, visitorName } = this.options;
    if (!awareness || !user) return [];
    awareness.setLocalStateField('user', user);
    return [
      yCursorPlugin(awareness, {
        cursorBuilder: (other: Partial<PresenceUser>) => caretFor(other, visitorName),
        selectionBuilder: (other: Partial<PresenceUser>) => ({ class: `presence-selection presence-colour-${other.colourIndex ?? 0}` }),
      }),
    ];
  },
});
