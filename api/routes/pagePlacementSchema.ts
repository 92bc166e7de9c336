/**
 * The placement fields shared by page creation and `PATCH /pages/:id/position`
 * (ARCHITECTURE: `{ parentId?, before? | after? | index? }`): at most one of them.
 */
import { z } from 'zod';

export const placementFields = {
  before: z.uuid().optional(),
  after: z.uuid().optional(),
  index: z.number().int().min(0).optional(),
};

export const onePlacement = {
  check: (body: { before?: unknown; after?: unknown; index?: unknown }) => [body.before, body.after, body.index].filter((value) => value !== undefined).length <= 1,
  // The message is the field catalogue's (`before:custom`).
  issue: { path: ['before'] },
};
