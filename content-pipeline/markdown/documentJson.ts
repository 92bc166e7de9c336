/** Plain ProseMirror JSON shapes as the Markdown reader builds them (before schema checks). */
export type Attrs = Record<string, unknown>;
export interface MarkJson {
  type: string;
  attrs?: Attrs;
}
export interface NodeJson {
  type: string;
  attrs?: Attrs;
  content?: NodeJson[];
  marks?: MarkJson[];
  text?: string;
}
