/**
 * `list_labels` and `set_page_labels` (spec: MCP endpoint: "`set_page_labels` is an exact
 * replace"), through the public API's label operations. Agents think in names, so
 * `set_page_labels` also takes a label's name where exactly one label of the pond carries it;
 * anything else is passed on as it is, and the operation refuses what is no label of the pond.
 */
import { z } from 'zod';
import { MAX_LABELS_PER_PAGE } from '../../commands/labelCommands.ts';
import { storableString } from '../../http/fieldSchemas.ts';
import { isUuid } from '../../policies/accessPolicy.ts';
import type { ApiCall } from '../../publicApi/apiCall.ts';
import { listApiLabels, setApiPageLabels } from '../../publicApi/operations/labelOperations.ts';
import type { ApiLabelNode } from '../../publicApi/views/labelViews.ts';
import { defineTool, type AnyMcpTool } from '../toolWrapper.ts';
import { pageField, pondField } from './toolFields.ts';

const listLabels = defineTool({
  name: 'list_labels',
  description:
    "Lists the pond's labels as a tree, as { items }: each label has id, name, color, parentId, depth and its `children`. Use the ids (or unambiguous names) with set_page_labels.",
  input: z.object({ pond: pondField }),
  write: false,
  run: (call, input) => listApiLabels(call, input.pond),
});

function* flatten(nodes: readonly ApiLabelNode[]): Generator<ApiLabelNode> {
  for (const node of nodes) {
    yield node;
    yield* flatten(node.children);
  }
}

/** Label ids for the given ids or names: a name carried by exactly one label of the pond becomes its id. */
async function labelIdsOf(call: ApiCall, pondSlug: string, labels: readonly string[]): Promise<string[]> {
  if (labels.every((label) => isUuid(label))) return [...labels];
  const byName = new Map<string, string[]>();
  for (const label of flatten((await listApiLabels(call, pondSlug)).items)) byName.set(label.name, [...(byName.get(label.name) ?? []), label.id]);
  return labels.map((label) => {
    const named = isUuid(label) ? undefined : byName.get(label);
    return named?.length === 1 ? named[0]! : label;
  });
}

const setPageLabels = defineTool({
  name: 'set_page_labels',
  description:
    'Sets exactly which labels a page carries: afterwards it has the given labels and no others (an empty list removes all). Returns { page, labels }. Needs a write token and write access to the page.',
  input: z.object({
    pond: pondField,
    page: pageField,
    labels: z
      .array(storableString().min(1).max(200))
      .max(MAX_LABELS_PER_PAGE)
      .describe('Label ids from list_labels; a label name works too where only one label of the pond has it'),
  }),
  write: true,
  destructive: true,
  run: async (call, input) => setApiPageLabels(call, input.pond, input.page, await labelIdsOf(call, input.pond, input.labels)),
});

export const labelTools: AnyMcpTool[] = [listLabels, setPageLabels];
