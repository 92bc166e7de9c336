/**
 * The public REST API's and MCP's views as zod schemas: the routes' `describe` hands them to
 * the OpenAPI document, the REST tests validate every answer against that document, and MCP
 * tools return the same shapes. Slugs address things; ids come along so a client can keep
 * them across renames.
 */
import { z } from 'zod';

const timestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp');

export const apiErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().describe('Stable error code (docs/api.md lists them)'),
      message: z.string().describe("Text in the caller's language"),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

export const apiLabelRef = z.object({ id: z.uuid(), name: z.string(), color: z.string() }).meta({ id: 'LabelRef' });

export const apiPond = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    url: z.url().describe('The pond in the browser'),
    personal: z.boolean().describe('A personal pond belongs to one user'),
  })
  .meta({ id: 'Pond' });

export const apiPageSummary = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    title: z.string(),
    parent: z.string().nullable().describe("The parent page's slug; null at the top level (or when the parent is not readable)"),
    createdAt: timestamp,
    updatedAt: timestamp,
    url: z.url().describe('The page in the browser'),
  })
  .meta({ id: 'PageSummary' });

export const apiPageDetail = apiPageSummary
  .extend({
    pond: z.string().describe("The pond's slug"),
    format: z.enum(['markdown', 'html']),
    content: z.string().describe('The page body in `format`'),
    labels: z.array(apiLabelRef),
  })
  .meta({ id: 'Page' });

export const apiMe = z
  .object({
    id: z.uuid(),
    username: z.string(),
    displayName: z.string(),
    locale: z.enum(['de', 'en']).nullable(),
    token: z.object({
      id: z.uuid(),
      name: z.string(),
      scope: z.enum(['read', 'write']),
      pond: z.string().nullable().describe("The slug of the one pond the token is restricted to, or null"),
    }),
  })
  .meta({ id: 'Me' });

/** A list page: `nextCursor` goes back as `cursor` for the next one; null at the end. */
export function apiList<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

export type ApiPond = z.infer<typeof apiPond>;
export type ApiPageSummary = z.infer<typeof apiPageSummary>;
export type ApiPageDetail = z.infer<typeof apiPageDetail>;
export type ApiMe = z.infer<typeof apiMe>;
