/**
 * The pop-up list of `[[`, `![[` and `@` suggestions: plain DOM (it lives in `document.body`,
 * above the editor), positioned through the CSSOM (the CSP forbids `style=` attributes) below the
 * caret or, without room there, above it (as bits-ui's floating content flips), driven
 * by the keyboard from the editor (↑ ↓ Enter Tab Escape) or by the pointer.
 */
import type { SuggestionKeyDownProps, SuggestionProps } from '@tiptap/suggestion';

export interface SuggestionChoice {
  /** Stable within one list (the option's id). */
  key: string;
  label: string;
  hint?: string;
  /** A choice that says something instead of doing it (loading, nothing found, failure). */
  inert?: boolean;
  /** Styled apart: the choice that links to a page that does not exist yet. */
  phantom?: boolean;
}

let menuCount = 0;
/** Between the caret and the list, and between the list and the window's edge (px). */
const GAP = 4;
const MARGIN = 8;

export function suggestionMenu(listLabel: string) {
  return () => {
    const menu = document.createElement('div');
    const id = `suggestions-${++menuCount}`;
    menu.id = id;
    menu.className = 'suggestion-menu';
    menu.setAttribute('role', 'listbox');
    menu.setAttribute('aria-label', listLabel);
    let props: SuggestionProps<SuggestionChoice, SuggestionChoice> | null = null;
    let selected = 0;

    const choosable = () => (props?.items ?? []).filter((item) => !item.inert);
    const draw = () => {
      if (!props) return;
      const items = props.items;
      const options = items.map((item) => {
        const option = document.createElement('div');
        option.setAttribute('role', 'option');
        option.id = `${id}-${item.key}`.replace(/[^\w-]/g, '_');
        option.className = `suggestion-option${item.phantom ? ' suggestion-option-phantom' : ''}${item.inert ? ' suggestion-option-inert' : ''}`;
        const index = choosable().indexOf(item);
        option.setAttribute('aria-selected', String(index === selected && !item.inert));
        option.setAttribute('aria-disabled', String(Boolean(item.inert)));
        const label = document.createElement('span');
        label.textContent = item.label;
        option.append(label);
        if (item.hint) {
          const hint = document.createElement('span');
          hint.className = 'suggestion-hint';
          hint.textContent = item.hint;
          option.append(hint);
        }
        if (!item.inert) {
          option.addEventListener('mousedown', (event) => {
            event.preventDefault();
            props?.command(item);
          });
        }
        return option;
      });
      menu.replaceChildren(...options);
      const active = options.find((option) => option.getAttribute('aria-selected') === 'true');
      const editable = props.editor.view.dom;
      if (active) editable.setAttribute('aria-activedescendant', active.id);
      else editable.removeAttribute('aria-activedescendant');
      editable.setAttribute('aria-controls', id);
      place();
    };
    const place = () => {
      const rect = props?.clientRect?.();
      if (!rect) return;
      const width = Math.min(320, window.innerWidth - 16);
      menu.style.width = `${width}px`;
      menu.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - width - 8))}px`;
      // Below the caret, or above it when the room below is too small for the list and the
      // room above is larger (a caret near the window's bottom, the phone's keyboard up).
      const room = { below: window.innerHeight - rect.bottom - GAP - MARGIN, above: rect.top - GAP - MARGIN };
      menu.style.maxHeight = '';
      const wanted = menu.offsetHeight;
      const above = wanted > room.below && room.above > room.below;
      const fits = Math.max(0, above ? room.above : room.below);
      if (wanted > fits) menu.style.maxHeight = `${fits}px`;
      const height = Math.min(wanted, fits);
      menu.style.top = `${above ? rect.top - GAP - height : rect.bottom + GAP}px`;
      menu.dataset['side'] = above ? 'top' : 'bottom';
    };

    return {
      onStart(next: SuggestionProps<SuggestionChoice, SuggestionChoice>) {
        props = next;
        selected = 0;
        document.body.append(menu);
        draw();
      },
      onUpdate(next: SuggestionProps<SuggestionChoice, SuggestionChoice>) {
        props = next;
        selected = Math.min(selected, Math.max(0, choosable().length - 1));
        draw();
      },
      onKeyDown({ event }: SuggestionKeyDownProps): boolean {
        const items = choosable();
        if (event.key === 'Escape') {
          menu.remove();
          return true;
        }
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          if (items.length === 0) return true;
          selected = (selected + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
          draw();
          return true;
        }
        if (event.key === 'Enter' || event.key === 'Tab') {
          const item = items[selected];
          if (!item || !props) return false;
          props.command(item);
          return true;
        }
        return false;
      },
      onExit() {
        props?.editor.view.dom.removeAttribute('aria-activedescendant');
        props?.editor.view.dom.removeAttribute('aria-controls');
        props = null;
        menu.remove();
      },
    };
  };
}
