/**
 * Node views for the schema's own link nodes (the schema stays content-pipeline's: these only
 * `extend` a node with a view). A wikilink is a link to the page, drawn apart when the target
 * does not exist (a phantom); a transclusion is a read-only box with the target's current
 * body from `/read/…`, which applies the reader's permissions and the depth limit, a note
 * when that page has no text, and a plain link when it cannot be shown.
 */
import type { Node as ProseMirrorNode } from '@tiptap/pm/model';
import { Transclusion, Wikilink } from '../../../content-pipeline/browser.ts';
import type { Translate } from '../i18n/translator.ts';
import type { PondDirectory } from './pondDirectory.ts';

export interface LinkViewContext {
  pondSlug: string;
  directory: PondDirectory;
  t: Translate;
}

const pageHref = (pondSlug: string, slug: string) => `/${encodeURIComponent(pondSlug)}/${encodeURIComponent(slug)}`;

export function wikilinkWithView(context: LinkViewContext) {
  return Wikilink.extend({
    addNodeView() {
      return ({ node }) => {
        const link = document.createElement('a');
        link.dataset['wikilink'] = '';
        const draw = (current: ProseMirrorNode) => {
          const slug = String(current.attrs['targetSlug'] ?? '');
          link.dataset['slug'] = slug;
          link.href = pageHref(context.pondSlug, slug);
          link.textContent = (current.attrs['displayText'] as string | null) ?? slug;
          const phantom = context.directory.pageExists(slug) === false;
          link.className = phantom ? 'wikilink wikilink-phantom' : 'wikilink';
          if (phantom) link.title = context.t('editor.phantomTitle');
          else link.removeAttribute('title');
        };
        draw(node);
        let shown = node;
        context.directory.onPagesLoaded(() => draw(shown));
        return {
          dom: link,
          update: (next) => {
            if (next.type !== shown.type) return false;
            shown = next;
            draw(next);
            return true;
          },
        };
      };
    },
  });
}

export function transclusionWithView(context: LinkViewContext) {
  return Transclusion.extend({
    addNodeView() {
      return ({ node }) => {
        const box = document.createElement('div');
        box.className = 'transclusion-box';
        box.dataset['transclusion'] = '';
        box.contentEditable = 'false';
        const heading = document.createElement('a');
        heading.className = 'transclusion-source';
        const body = document.createElement('div');
        body.className = 'transclusion-body';
        box.append(heading, body);
        let loadedSlug: string | null = null;
        let request: AbortController | null = null;

        const draw = (current: ProseMirrorNode) => {
          const slug = String(current.attrs['targetSlug'] ?? '');
          const name = (current.attrs['displayText'] as string | null) ?? slug;
          box.dataset['slug'] = slug;
          box.setAttribute('aria-label', context.t('editor.transclusionLabel', { name }));
          heading.href = pageHref(context.pondSlug, slug);
          heading.textContent = name;
          if (slug === loadedSlug) return;
          loadedSlug = slug;
          request?.abort();
          request = new AbortController();
          body.replaceChildren();
          body.setAttribute('aria-busy', 'true');
          void fetch(`/api/v1/read/${encodeURIComponent(context.pondSlug)}/${encodeURIComponent(slug)}`, { credentials: 'same-origin', signal: request.signal })
            .then(async (response) => {
              if (!response.ok) throw new Error(String(response.status));
              // The read endpoint's HTML is the pipeline's sanitized rendering, as on the page itself.
              const html = await response.text();
              if (html.trim() !== '') {
                body.innerHTML = html;
                return;
              }
              // An empty box would read as broken: the embedded page has no text yet.
              const note = document.createElement('p');
              note.className = 'transclusion-empty';
              note.textContent = context.t('editor.transclusionEmpty');
              body.replaceChildren(note);
            })
            .catch((error: unknown) => {
              if ((error as Error).name === 'AbortError') return;
              const note = document.createElement('p');
              note.className = 'transclusion-failed';
              note.textContent = context.t('editor.transclusionFailed', { name });
              body.replaceChildren(note);
            })
            .finally(() => body.removeAttribute('aria-busy'));
        };
        draw(node);
        let shown = node;
        return {
          dom: box,
          update: (next) => {
            if (next.type !== shown.type) return false;
            shown = next;
            draw(next);
            return true;
          },
          stopEvent: () => false,
          ignoreMutation: () => true,
          destroy: () => request?.abort(),
        };
      };
    },
  });
}
