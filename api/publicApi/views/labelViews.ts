/** Labels in the public REST API and MCP (operations/labelOperations.ts): a pond's tree, one label, a page's labels. */
import { z } from 'zod';
import { apiLabelRef } from '../publicApiViews.ts';

export const apiLabel = z
  .object({
    id: z.uuid(),
    name: z.string(),
    color: z.string().describe('`#rrggbb`'),
    parentId: z.uuid().nullable().describe("The parent label's id; null for a root label"),
    depth: z.number().int().min(1).describe('1 for a root label'),
  })
  .meta({ id: 'Label' });

export type ApiLabel = z.infer<typeof apiLabel>;
export type ApiLabelNode = ApiLabel & { children: ApiLabelNode[] };

// Annotated: a schema that refers to itself cannot have its type inferred.
export const apiLabelNode: z.ZodType<ApiLabelNode> = apiLabel
  .extend({
    get children(): z.ZodArray<z.ZodType<ApiLabelNode>> {
      return z.array(apiLabelNode).describe('Child labels, by name');
    },
  })
  .meta({ id: 'LabelNode' });

export const apiPageLabels = z
  .object({
    page: z.string().describe("The page's slug"),
    labels: z.array(apiLabelRef).describe('All labels the page carries now, in tree order'),
  })
  .meta({ id: 'PageLabels' });

export type ApiPageLabels = z.infer<typeof apiPageLabels>;
