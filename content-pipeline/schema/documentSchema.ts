/**
 * The document schema: Tiptap extensions without DOM or Svelte, shared by the editor (which
 * adds views), the collaboration server and this pipeline. `documentSchema` is the
 * ProseMirror schema every document JSON must satisfy.
 */
import { Extension, getSchema, type AnyExtension, type JSONContent } from '@tiptap/core';
import Code from '@tiptap/extension-code';
import Image from '@tiptap/extension-image';
import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table';
import TaskItem from '@tiptap/extension-task-item';
import TaskList from '@tiptap/extension-task-list';
import StarterKit from '@tiptap/starter-kit';
import { HEADING_ANCHOR_PREFIX } from '../markdown/headingIds.ts';
import { Mention, PluginBlock, Section, Transclusion, Wikilink } from './customNodes.ts';

/**
 * Headings carry a stable `id` (unique within the page) for the outline and anchors. It is
 * stored bare (`intro`) and rendered prefixed (`h-intro`), as documentToHtml renders it, so a
 * heading never takes an id the app uses; HTML of ours pasted back loses the prefix again.
 */
const HeadingIds = Extension.create({
  name: 'headingIds',
  addGlobalAttributes() {
    return [
      {
        types: ['heading'],
        attributes: {
          id: {
            default: null,
            parseHTML: (element) => {
              const id = element.getAttribute('id');
              if (!id) return null;
              return id.startsWith(HEADING_ANCHOR_PREFIX) ? id.slice(HEADING_ANCHOR_PREFIX.length) || null : id;
            },
            renderHTML: (attributes) => (typeof attributes.id === 'string' && attributes.id !== '' ? { id: HEADING_ANCHOR_PREFIX + attributes.id } : {}),
          },
        },
      },
    ];
  },
});

/**
 * Lists are tight (`<li>foo</li>`, items written without blank lines) or loose
 * (`<li><p>foo</p></li>`), as CommonMark distinguishes them. The default is tight: lists made
 * in the editor (one paragraph per item) are tight, and so are documents stored before the
 * attribute existed, which were always written to Markdown without blank lines.
 */
const ListTightness = Extension.create({
  name: 'listTightness',
  addGlobalAttributes() {
    return [
      {
        types: ['bulletList', 'orderedList', 'taskList'],
        attributes: {
          tight: {
            default: true,
            parseHTML: (element) => element.getAttribute('data-tight') !== 'false',
            renderHTML: (attributes) => (attributes.tight === false ? { 'data-tight': 'false' } : {}),
          },
        },
      },
    ];
  },
});

/** Images reference an uploaded file by id; the URL is derived, never stored. */
const UploadedImage = Image.extend({
  addAttributes() {
    return {
      fileId: { default: null },
      alt: { default: null },
      title: { default: null },
    };
  },
});

/**
 * Inline code combines with other marks (a code span inside a link, bold or italic text),
 * as Markdown and HTML allow; Tiptap's default code mark excludes every other mark.
 */
const CombinableCode = Code.extend({ excludes: '' });

/** Table cells hold inline content only (one paragraph), as GFM tables do. */
const InlineTableCell = TableCell.extend({ content: 'paragraph' });
const InlineTableHeader = TableHeader.extend({ content: 'paragraph' });

export const documentExtensions: AnyExtension[] = [
  StarterKit.configure({
    underline: false,
    dropcursor: false,
    gapcursor: false,
    undoRedo: false,
    code: false,
    trailingNode: false,
    link: { openOnClick: false, autolink: true, protocols: ['http', 'https', 'mailto'] },
    heading: { levels: [1, 2, 3, 4, 5, 6] },
  }),
  CombinableCode,
  HeadingIds,
  ListTightness,
  UploadedImage,
  Table,
  TableRow,
  InlineTableHeader,
  InlineTableCell,
  TaskList,
  TaskItem.configure({ nested: true }),
  Wikilink,
  Transclusion,
  PluginBlock,
  Section,
  Mention,
];

export const documentSchema = getSchema(documentExtensions);

/** A document as ProseMirror JSON of `documentSchema` (`{ type: 'doc', content: [...] }`). */
export type DocumentJson = JSONContent & { type: 'doc' };

export const EMPTY_DOCUMENT: DocumentJson = { type: 'doc', content: [{ type: 'paragraph' }] };

/** Throws when the JSON is not a valid document of our schema. */
export function assertValidDocument(doc: unknown): asserts doc is DocumentJson {
  const node = documentSchema.nodeFromJSON(doc);
  node.check();
}
