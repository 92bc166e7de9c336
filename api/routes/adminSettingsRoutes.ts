/** Instance settings for the Site Admin, under dotted keys. */
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { siteSettingsChanged } from '../publicPages/siteDocumentInvalidation.ts';
import { getAllSettings, setSetting, settingsPatchBody, type SettingKey } from '../settings/instanceSettings.ts';

/** The SMTP password never leaves the server. */
async function presentSettings() {
  const settings = await getAllSettings();
  const smtp = settings['smtp.settings'];
  return { ...settings, 'smtp.settings': smtp ? { ...smtp, password: undefined, passwordSet: Boolean(smtp.password) } : null };
}

/** Long texts are audited by key only. */
function auditableValue(value: unknown): unknown {
  return typeof value === 'string' && value.length > 200 ? `[${value.length} characters]` : value;
}

export const adminSettingsRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/admin/settings',
    access: { kind: 'siteAdmin' },
    handler: async () => ({ body: await presentSettings() }),
  }),
  defineRoute({
    method: 'patch',
    path: '/admin/settings',
    access: { kind: 'siteAdmin' },
    body: settingsPatchBody,
    handler: async ({ req, actor, body: changes, services }) => {
      const user = actor.user;
      await services.sequelize.transaction(async (transaction) => {
        for (const [key, value] of Object.entries(changes)) {
          await setSetting(key as SettingKey, value as never, { actorId: user.id, transaction });
        }
        // The next visitor sees the new landing and legal pages (api/publicPages/).
        await siteSettingsChanged(transaction, Object.keys(changes));
        await recordAudit(
          {
            actor: auditActorOf(user),
            action: 'settings.changed',
            details: { changes: Object.fromEntries(Object.entries(changes).map(([key, value]) => [key, auditableValue(value)])) },
            ip: req.ip,
          },
          transaction,
        );
      });
      return { body: await presentSettings() };
    },
  }),
];
