/** All paragraphs' text of an editor document, one line each: what tests and the soak compare. */
import * as Y from 'yjs';

export function paragraphText(ydoc: Y.Doc): string {
  return ydoc
    .getXmlFragment('default')
    .toArray()
    .map((node) => (node instanceof Y.XmlElement ? node.toArray().map((child) => (child instanceof Y.XmlText ? child.toString() : '')).join('') : ''))
    .join('\n');
}
