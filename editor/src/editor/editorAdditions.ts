/**
 * What the page editor adds on top of the schema: `[[` page links (a missing name links to a
 * phantom), `![[` transclusions and `@` mentions through `@tiptap/suggestion`, and Markdown
 * pasted as plain text read through the content pipeline's own parser (HTML on the clipboard
 * is parsed by the schema, as ProseMirror does anyway).
 */
import { Extension, type Editor, type Range } from '@tiptap/core';
import { Plugin, PluginKey } from '@tiptap/pm/state';
import Suggestion from '@tiptap/suggestion';
import { slugify } from '../../../api/ponds/slugs.ts';
import type { Translate } from '../i18n/translator.ts';
import { matchPages, type PondDirectory } from './pondDirectory.ts';
import { suggestionMenu, type SuggestionChoice } from './suggestionMenu.ts';
import { loadMarkdownReader } from '../../../content-pipeline/browser.ts';

interface Choice extends SuggestionChoice {
  apply?: (editor: Editor, range: Range) => void;
}

export interface AdditionsContext {
  directory: PondDirectory;
  t: Translate;
}

/** Plain text that reads as Markdown: a block marker at a line start, or inline syntax. */
export function looksLikeMarkdown(text: string): boolean {
  return /^(#{1,6} |[-*+] |\d+[.)] |> |```|\|.*\||- \[[ x]\] )/m.test(text) || /\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\n]+\)|\[\[[^\]\n]+\]\]|`[^`\n]+`/.test(text);
}

function failed(t: Translate): Choice[] {
  return [{ key: 'failed', label: t('editor.suggest.failed'), inert: true }];
}

function pageChoices(context: AdditionsContext, kind: 'wikilink' | 'transclusion') {
  return async ({ query }: { query: string }): Promise<Choice[]> => {
    const { t } = context;
    let pages;
    try {
      pages = await context.directory.pages();
    } catch {
      return failed(t);
    }
    const wanted = query.replace(/\]+$/, '').trim();
    const found: Choice[] = matchPages(pages, wanted).map((page) => ({
      key: `page-${page.slug}`,
      label: page.title,
      hint: page.slug,
      apply: (editor, range) => insertLink(editor, range, kind, page.slug, page.title === page.slug ? null : page.title),
    }));
    const slug = slugify(wanted);
    const exists = pages.some((page) => page.slug.toLowerCase() === slug || page.title.toLowerCase() === wanted.toLowerCase());
    if (slug && !exists) {
      found.push({
        key: `missing-${slug}`,
        label: t('editor.suggest.createMissing', { name: wanted }),
        hint: slug,
        phantom: true,
        apply: (editor, range) => insertLink(editor, range, kind, slug, wanted === slug ? null : wanted),
      });
    }
    return found.length > 0 ? found : [{ key: 'none', label: t('editor.suggest.none'), inert: true }];
  };
}

function insertLink(editor: Editor, range: Range, kind: 'wikilink' | 'transclusion', targetSlug: string, displayText: string | null): void {
  const node = { type: kind, attrs: { targetSlug, displayText } };
  editor.chain().focus().insertContentAt(range, kind === 'wikilink' ? [node, { type: 'text', text: ' ' }] : node).run();
}

function memberChoices(context: AdditionsContext) {
  return async ({ query }: { query: string }): Promise<Choice[]> => {
    let members;
    try {
      members = await context.directory.members();
    } catch {
      return failed(context.t);
    }
    const wanted = query.trim().toLowerCase();
    const found = members
      .filter((member) => !wanted || member.displayName.toLowerCase().includes(wanted) || member.username.toLowerCase().includes(wanted))
      .slice(0, 8)
      .map<Choice>((member) => ({
        key: `member-${member.userId}`,
        label: member.displayName,
        hint: `@${member.username}`,
        apply: (editor, range) =>
          editor.chain().focus().insertContentAt(range, [{ type: 'mention', attrs: { id: member.userId, label: member.displayName } }, { type: 'text', text: ' ' }]).run(),
      }));
    return found.length > 0 ? found : [{ key: 'none', label: context.t('editor.suggest.none'), inert: true }];
  };
}

function suggestions(context: AdditionsContext) {
  return Extension.create({
    name: 'pageSuggestions',
    addProseMirrorPlugins() {
      const editor = this.editor;
      const command = ({ editor: target, range, props }: { editor: Editor; range: Range; props: Choice }) => props.apply?.(target, range);
      return [
        Suggestion<Choice, Choice>({ editor, pluginKey: new PluginKey('wikilinkSuggestion'), char: '[[', allowSpaces: true, items: pageChoices(context, 'wikilink'), command, render: suggestionMenu(context.t('editor.suggest.pages')) }),
        Suggestion<Choice, Choice>({ editor, pluginKey: new PluginKey('transclusionSuggestion'), char: '![[', allowSpaces: true, items: pageChoices(context, 'transclusion'), command, render: suggestionMenu(context.t('editor.suggest.pages')) }),
        Suggestion<Choice, Choice>({ editor, pluginKey: new PluginKey('mentionSuggestion'), char: '@', items: memberChoices(context), command, render: suggestionMenu(context.t('editor.suggest.members')) }),
      ];
    },
  });
}

const MarkdownPaste = Extension.create({
  name: 'markdownPaste',
  addProseMirrorPlugins() {
    const editor = this.editor;
    return [
      new Plugin({
        key: new PluginKey('markdownPaste'),
        props: {
          handlePaste(view, event) {
            const data = event.clipboardData;
            if (!data || data.types.includes('text/html') || view.state.selection.$from.parent.type.spec.code) return false;
            const text = data.getData('text/plain');
            if (!looksLikeMarkdown(text)) return false;
            const { from, to } = view.state.selection;
            // The parser loads on the first Markdown paste only; the text goes where the selection was.
            void loadMarkdownReader()
              .then((markdownToDocument) => {
                const document = markdownToDocument(text);
                editor.chain().focus().insertContentAt({ from, to }, document.content ?? []).run();
              })
              .catch(() => editor.chain().focus().insertContentAt({ from, to }, text).run());
            return true;
          },
        },
      }),
    ];
  },
});

export function editorAdditions(context: AdditionsContext) {
  return [suggestions(context), MarkdownPaste];
}
