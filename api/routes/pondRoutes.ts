/** The ponds the signed-in user belongs to (through a user grant or an all-signed-in grant). */
import { QueryTypes } from 'sequelize';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { Pond, type PondRole } from '../models/index.ts';
import { presentPondSummary } from '../presenters/pondPresenter.ts';

interface MembershipRow {
  pond_id: string;
  role: PondRole;
}

export const pondRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds',
    access: { kind: 'session' },
    handler: async ({ actor, services }) => {
      // The strongest pond-scope allow grant decides the role shown; denies are resolved per page later.
      const memberships = await services.sequelize.query<MembershipRow>(
        `SELECT DISTINCT ON (g.pond_id) g.pond_id, g.role
           FROM grants g
          WHERE g.effect = 'allow' AND g.scope_type = 'pond'
            AND (g.subject_user_id = :userId OR g.subject_type = 'signed-in')
          ORDER BY g.pond_id, array_position(ARRAY['pond_admin', 'editor', 'reader'], g.role)`,
        { replacements: { userId: actor!.user.id }, type: QueryTypes.SELECT },
      );
      const roles = new Map(memberships.map((row) => [row.pond_id, row.role]));
      const ponds = await Pond.findAll({ where: { id: [...roles.keys()], trashedAt: null }, order: [['kind', 'ASC'], ['name', 'ASC']] });
      return { body: { items: ponds.map((pond) => presentPondSummary(pond, roles.get(pond.id) ?? null)), nextCursor: null } };
    },
  }),
];
