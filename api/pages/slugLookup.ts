/**
 * Ponds and pages by slug, as addresses name them (feeds, the public REST API, MCP): a live
 * pond or page the subject may read, and the same 404 for one that does not exist. The policy
 * module decides; this module never reads grants.
 */
import { Op, fn, col, where, type Sequelize } from 'sequelize';
import { notFound } from '../http/apiError.ts';
import { Page, Pond } from '../models/index.ts';
import { subjectAccessTo, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';

// Slugs are stored lowercase but compared as the unique indexes do (lower(slug)).
const slugIs = (slug: string) => where(fn('lower', col('slug')), slug.toLowerCase());
// Anything else cannot be a slug (api/ponds/slugs.ts) and is not sent to the database at all
// (a NUL would make Postgres refuse the statement).
const SLUG_SHAPE = /^[A-Za-z0-9-]{1,100}$/;

/** A live pond by slug (any case) with the reader's view of it; 404 when there is none. */
export async function findLivePond(sequelize: Sequelize, subject: AccessSubject, pondSlug: string): Promise<{ pond: Pond; access: SubjectAccess }> {
  if (!SLUG_SHAPE.test(pondSlug)) throw notFound();
  const pond = await Pond.findOne({ where: { trashedAt: null, [Op.and]: [slugIs(pondSlug)] } });
  const access = pond ? await subjectAccessTo(sequelize, subject, pond.id) : null;
  if (!pond || !access) throw notFound();
  return { pond, access };
}

/** A live page of the pond by slug that the reader may read; 404 otherwise. */
export async function findReadablePage(pond: Pond, access: SubjectAccess, pageSlug: string): Promise<Page> {
  if (!SLUG_SHAPE.test(pageSlug)) throw notFound();
  const page = await Page.findOne({ where: { pondId: pond.id, trashedAt: null, [Op.and]: [slugIs(pageSlug)] } });
  if (!page || !access.page(page, 'read').allowed) throw notFound();
  return page;
}
