/**
 * Fixtures for the public REST API and MCP tests: the instance and pond switches, and personal
 * access tokens issued straight through the token module (the token routes have tests of
 * their own: api/routes/apiTokenRoutes.test.ts).
 */
import { createAccessToken, type TokenScope } from '../auth/accessTokens.ts';
import { Pond } from '../models/index.ts';
import { withSettingDefaults } from '../ponds/pondSettings.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import type { TestInstance } from './testInstance.ts';

/** The instance switches `api.enabled` and `mcp.enabled`. */
export async function setInstanceSwitches(instance: TestInstance, switches: { api?: boolean; mcp?: boolean }): Promise<void> {
  await instance.services.sequelize.transaction(async (transaction) => {
    if (switches.api !== undefined) await setSetting('api.enabled', switches.api, { actorId: null, transaction });
    if (switches.mcp !== undefined) await setSetting('mcp.enabled', switches.mcp, { actorId: null, transaction });
  });
}

/** A pond's opt-ins `apiEnabled` and `mcpEnabled`, kept beside its other settings. */
export async function setPondSwitches(pondId: string, switches: { api?: boolean; mcp?: boolean }): Promise<void> {
  const pond = await Pond.findByPk(pondId, { rejectOnEmpty: true });
  const settings = { ...withSettingDefaults(pond.settings) };
  if (switches.api !== undefined) settings.apiEnabled = switches.api;
  if (switches.mcp !== undefined) settings.mcpEnabled = switches.mcp;
  await pond.update({ settings });
}

export interface IssuedToken {
  id: string;
  secret: string;
}

export async function issueToken(
  instance: TestInstance,
  userId: string,
  options: { scope?: TokenScope; pondId?: string | null; expiresAt?: Date | null; name?: string } = {},
): Promise<IssuedToken> {
  const { sequelize } = instance.services;
  const { token, secret } = await sequelize.transaction((transaction) =>
    createAccessToken(
      sequelize,
      { userId, name: options.name ?? `token ${options.scope ?? 'write'}`, scope: options.scope ?? 'write', expiresAt: options.expiresAt ?? null, pondId: options.pondId ?? null },
      transaction,
    ),
  );
  return { id: token.id, secret };
}
