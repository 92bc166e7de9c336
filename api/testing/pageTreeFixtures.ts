/**
 * Page trees for the route tests of trash, restore and purge: built through the API (so
 * positions are the real ones) and read back as a one-line outline to compare with.
 */
import assert from 'node:assert/strict';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { TestClient } from './testClient.ts';

/** A page tree by title, children in order: `{ R: { S1: {}, X: {} } }`. */
export type PageShape = { [title: string]: PageShape };

export const byPosition = (a: { position: string }, b: { position: string }) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0);

/** Creates the shape through the API as `client`, which must be able to edit the pond; title → id. */
export async function buildPageTree(client: TestClient, pondId: string, shape: PageShape): Promise<(title: string) => string> {
  const ids = new Map<string, string>();
  const create = async (children: PageShape, parentId: string | null) => {
    for (const [title, grandchildren] of Object.entries(children)) {
      const response = await client.post(`/ponds/${pondId}/pages`, { title, parentId });
      assert.equal(response.status, 201, response.text);
      ids.set(title, response.body.id);
      await create(grandchildren, response.body.id);
    }
  };
  await create(shape, null);
  return (title) => {
    const id = ids.get(title);
    assert.ok(id, `no page ${title}`);
    return id;
  };
}

/** The live tree as text, `R[S1 X[c1] S2]`, siblings sorted by position; asserts no live page hangs under a trashed parent. */
export async function liveOutline(sequelize: Sequelize, pondId: string): Promise<string> {
  const rows = await sequelize.query<{ id: string; title: string; parent_id: string | null; position: string }>(
    `SELECT id, title, parent_id, position FROM pages WHERE pond_id = :pondId AND trashed_at IS NULL`,
    { replacements: { pondId }, type: QueryTypes.SELECT },
  );
  let rendered = 0;
  const render = (parentId: string | null): string =>
    rows
      .filter((row) => row.parent_id === parentId)
      .sort(byPosition)
      .map((row) => {
        rendered += 1;
        const inner = render(row.id);
        return inner ? `${row.title}[${inner}]` : row.title;
      })
      .join(' ');
  const text = render(null);
  assert.equal(rendered, rows.length, `live pages under a trashed parent: ${text}`);
  return text;
}
