/**
 * Comments written straight to the database, for tests whose subject is who may act on them
 * (the route tests create them through HTTP where creation itself is under test).
 */
import { QueryTypes } from 'sequelize';
import { renderCommentHtml } from '../../content-pipeline/index.ts';
import type { Page } from '../models/index.ts';
import type { TestInstance } from './testInstance.ts';

export interface SeedCommentOptions {
  parentId?: string | null;
  body?: string;
  /** Resolved by its author. */
  resolved?: boolean;
  anchor?: { from: string; to: string; quote: string } | null;
}

let counter = 0;

export async function seedComment(instance: TestInstance, page: Pick<Page, 'id' | 'pondId'>, authorId: string, options: SeedCommentOptions = {}): Promise<string> {
  counter += 1;
  const body = options.body ?? `Seeded comment ${counter}`;
  const [row] = await instance.services.sequelize.query<{ id: string }>(
    `INSERT INTO comments (pond_id, page_id, parent_id, author_id, body, body_html, anchor, resolved_at, resolved_by, created_at)
     VALUES (:pondId, :pageId, :parentId, :authorId, :body, :bodyHtml, CAST(:anchor AS jsonb),
             CASE WHEN :resolved THEN now() END, CASE WHEN :resolved THEN CAST(:authorId AS uuid) END, clock_timestamp())
     RETURNING id`,
    {
      replacements: {
        pondId: page.pondId,
        pageId: page.id,
        parentId: options.parentId ?? null,
        authorId,
        body,
        bodyHtml: renderCommentHtml(body),
        anchor: options.anchor ? JSON.stringify(options.anchor) : null,
        resolved: options.resolved ?? false,
      },
      type: QueryTypes.SELECT,
    },
  );
  return row!.id;
}

export async function commentRow(instance: TestInstance, id: string): Promise<Record<string, any> | undefined> {
  const [row] = await instance.services.sequelize.query<Record<string, any>>(`SELECT * FROM comments WHERE id = :id`, { replacements: { id }, type: QueryTypes.SELECT });
  return row;
}

export async function setCommentPolicy(instance: TestInstance, pondId: string, policy: 'readers' | 'editors'): Promise<void> {
  await instance.services.sequelize.query(`UPDATE ponds SET settings = settings || jsonb_build_object('commentPolicy', CAST(:policy AS text)) WHERE id = :pondId`, {
    replacements: { pondId, policy },
  });
}
