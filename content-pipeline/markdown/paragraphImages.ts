/**
 * Uploaded images are blocks in our schema, but Markdown writes them inline: a paragraph that
 * holds one is split around it, and the cut's leftover whitespace and hard breaks are dropped.
 */
import type { NodeJson } from './documentJson.ts';

/** A paragraph; an empty one carries no `content` key, as ProseMirror writes it. */
export function paragraph(content: NodeJson[]): NodeJson {
  return content.length > 0 ? { type: 'paragraph', content } : { type: 'paragraph' };
}

export /** A paragraph whose inline content holds uploaded images: paragraphs and images in order. */
function splitAroundImages(content: NodeJson[]): NodeJson[] {
  if (!content.some((node) => node.type === 'image')) return [paragraph(content)];
  const blocks: NodeJson[] = [];
  let run: NodeJson[] = [];
  const flush = (): void => {
    const trimmed = trimInlineEdges(run);
    if (trimmed.length > 0) blocks.push(paragraph(trimmed));
    run = [];
  };
  for (const node of content) {
    if (node.type === 'image') {
      flush();
      blocks.push(node);
    } else {
      run.push(node);
    }
  }
  flush();
  return blocks;
}

/** Drops the whitespace and hard breaks a cut leaves at the edges of a paragraph. */
function trimInlineEdges(nodes: NodeJson[]): NodeJson[] {
  const result = [...nodes];
  const trimEdge = (index: () => number, pattern: RegExp): void => {
    for (let node = result[index()]; node; node = result[index()]) {
      if (node.type === 'hardBreak') {
        result.splice(index(), 1);
        continue;
      }
      if (node.type !== 'text') return;
      const trimmed = (node.text ?? '').replace(pattern, '');
      if (trimmed !== '') {
        result[index()] = { ...node, text: trimmed };
        return;
      }
      result.splice(index(), 1);
    }
  };
  trimEdge(() => 0, /^[ \t\r\n]+/);
  trimEdge(() => result.length - 1, /[ \t\r\n]+$/);
  return result;
}
