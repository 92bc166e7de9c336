/**
 * The one place that reads `process.env`. Parsed once with zod into a frozen, typed object;
 * a wrong value stops the process with a message that names the variable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * Which hops in front of us may say who the client is (Express' `trust proxy`): `false`
 * (default, `0` the same: X-Forwarded-* is ignored), a hop count (`1` = one proxy in
 * front: the client is the last X-Forwarded-For entry), or a comma-separated list of the
 * proxies' addresses or CIDRs (IPv4 and IPv6, or Express' names `loopback`, `linklocal`,
 * `uniquelocal`). `true` is refused: trusting every hop lets any client forge its address
 * and walk past the per-IP login limits.
 */
export type TrustProxy = false | number | readonly string[];

const MAX_PROXY_HOPS = 10;
const TRUSTED_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const trustProxyFromEnv = z.string().transform((raw, ctx): TrustProxy => {
  const value = raw.trim().toLowerCase();
  if (value === '' || value === 'false' || value === 'no' || value === '0') return false;
  if (value === 'true' || value === 'yes') {
    ctx.addIssue({
      code: 'custom',
      message: 'true would trust every hop, so any client could forge its address; give the number of proxies in front (e.g. 1) or their addresses/CIDRs',
    });
    return z.NEVER;
  }
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops <= MAX_PROXY_HOPS) return hops;
    ctx.addIssue({ code: 'custom', message: `a hop count must be between 0 and ${MAX_PROXY_HOPS}` });
    return z.NEVER;
  }
  const problems = value.split(',').map((entry) => trustedProxyEntryProblem(entry.trim())).filter((problem) => problem !== null);
  if (problems.length === 0) return Object.freeze(value.split(',').map((entry) => entry.trim()));
  for (const message of problems) ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});

/** Null for an address, an address/prefix or one of Express' names; otherwise what is wrong with it. */
function trustedProxyEntryProblem(entry: string): string | null {
  if (TRUSTED_PROXY_NAMES.has(entry)) return null;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const valid = family !== 0 && rest.length === 0 && (prefix === undefined || /^[0-9]{1,3}$/.test(prefix));
  if (!valid) return `${JSON.stringify(entry)} is not a hop count, IP address or CIDR`;
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  if (bits === 0) return `${JSON.stringify(entry)} would trust every address, like true`;
  return bits <= (family === 4 ? 32 : 128) ? null : `${JSON.stringify(entry)} has a prefix longer than the address`;
}

/** Where an http issuer is acceptable: a provider on this machine, e.g. in development and tests. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  SESSION_SECRET: z.string().min(32).optional(),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  TRUST_PROXY: trustProxyFromEnv.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_SECURE: booleanFromEnv.default(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().min(3).optional(),
  LOGIN_RATE_LIMIT_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).default(50),
  LOGIN_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(17),
  COLLAB_HOST: z.string().min(1).default('127.0.0.1'),
  COLLAB_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  COLLAB_STORE_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  PUBLIC_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/ })
    .refine((value) => !URL.canParse(value) || new URL(value).protocol === 'https:' || LOOPBACK_HOSTS.has(new URL(value).hostname), {
      message: 'must be an https URL (http only for localhost)',
    })
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_SCOPES: z
    .string()
    .default('openid email profile')
    .refine((value) => value.split(/\s+/).includes('openid'), { message: 'must include openid' }),
  OIDC_PROVIDER_LABEL: z.string().trim().min(1).max(60).default('Single sign-on'),
  OIDC_AUTO_CREATE: booleanFromEnv.default(true),
  OIDC_REQUIRE_VERIFIED_EMAIL: booleanFromEnv.default(false),
});

/** External sign-in (SPEC Authentication 2); null when OIDC_ISSUER is not set. */
export interface OidcConfig {
  /**
   * Exactly as configured (a trailing slash kept: the provider's metadata must name the same
   * issuer, and Authentik's ends in one); discovery reads `<issuer>/.well-known/openid-configuration`.
   */
  readonly issuer: string;
  readonly clientId: string;
  /** Absent for a public client (PKCE only); confidential clients are the documented setup. */
  readonly clientSecret: string | undefined;
  readonly scopes: string;
  readonly providerLabel: string;
  /** Whether a first sign-in with an unknown identity creates an account (even with closed registration). */
  readonly autoCreate: boolean;
  /** Whether a new account needs an address the provider asserts as verified. */
  readonly requireVerifiedEmail: boolean;
}

export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Origin the instance is reached at; session cookies and CSRF checks key on it. */
  readonly baseUrl: string;
  /** False when BASE_URL was not set and `baseUrl` is only the localhost default. */
  readonly baseUrlExplicit: boolean;
  readonly dataDir: string;
  /** Set when an external Postgres is used; absent means the supervisor starts embedded Postgres. */
  readonly databaseUrl: string | undefined;
  readonly embeddedPgPort: number;
  readonly sessionSecret: string;
  readonly sessionTtlDays: number;
  /** Passed to Express' `trust proxy` as is; see TrustProxy. */
  readonly trustProxy: TrustProxy;
  readonly logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** Deploy-level SMTP, used when setup stored no SMTP settings. */
  readonly smtpFallback: SmtpSettings | null;
  /** `perAccount` counts attempts per (account, client address), `perIp` per client address. */
  readonly loginRateLimit: { perAccount: number; perIp: number; windowSeconds: number };
  /** Requests per personal access token and minute, REST and MCP together (429 with `Retry-After` beyond). */
  readonly apiRateLimit: { limit: number; windowSeconds: number };
  /** log2 of the scrypt cost parameter N (17 = OWASP's 2^17); lower stored costs are raised at sign-in. */
  readonly passwordHashCost: number;
  /** Where the collab process listens; the API proxies `/collab` WebSocket upgrades there. */
  readonly collab: { host: string; port: number; storeDebounceMs: number };
  /** Byte budget of each API process's in-memory copy of public documents (0 turns it off). */
  readonly publicCacheBytes: number;
  readonly oidc: OidcConfig | null;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  username?: string | undefined;
  password?: string | undefined;
  from: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the given environment; throws a ConfigError naming every bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const parsed = result.data;
  const oidcProblems = oidcConfigProblems(parsed);
  if (oidcProblems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${oidcProblems.join('\n  ')}`);
  const dataDir = path.resolve(parsed.DATA_DIR);
  const baseUrl = new URL(parsed.BASE_URL ?? `http://localhost:${parsed.PORT}`).origin;
  const smtpFallback =
    parsed.SMTP_HOST && parsed.SMTP_FROM
      ? {
          host: parsed.SMTP_HOST,
          port: parsed.SMTP_PORT,
          secure: parsed.SMTP_SECURE,
          username: parsed.SMTP_USER,
          password: parsed.SMTP_PASSWORD,
          from: parsed.SMTP_FROM,
        }
      : null;
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    baseUrl,
    baseUrlExplicit: parsed.BASE_URL !== undefined,
    dataDir,
    databaseUrl: parsed.DATABASE_URL,
    embeddedPgPort: parsed.EMBEDDED_PG_PORT,
    sessionSecret: parsed.SESSION_SECRET ?? loadOrCreateSessionSecret(dataDir),
    sessionTtlDays: parsed.SESSION_TTL_DAYS,
    trustProxy: parsed.TRUST_PROXY,
    logLevel: parsed.LOG_LEVEL,
    smtpFallback,
    loginRateLimit: {
      perAccount: parsed.LOGIN_RATE_LIMIT_PER_ACCOUNT,
      perIp: parsed.LOGIN_RATE_LIMIT_PER_IP,
      windowSeconds: parsed.LOGIN_RATE_LIMIT_WINDOW_SECONDS,
    },
    apiRateLimit: { limit: parsed.API_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
    passwordHashCost: parsed.PASSWORD_HASH_COST,
    collab: { host: parsed.COLLAB_HOST, port: parsed.COLLAB_PORT, storeDebounceMs: parsed.COLLAB_STORE_DEBOUNCE_MS },
    publicCacheBytes: parsed.PUBLIC_CACHE_MB * 1024 * 1024,
    oidc: parsed.OIDC_ISSUER && parsed.OIDC_CLIENT_ID
      ? Object.freeze({
          issuer: parsed.OIDC_ISSUER,
          clientId: parsed.OIDC_CLIENT_ID,
          clientSecret: parsed.OIDC_CLIENT_SECRET,
          scopes: parsed.OIDC_SCOPES.trim().split(/\s+/).join(' '),
          providerLabel: parsed.OIDC_PROVIDER_LABEL,
          autoCreate: parsed.OIDC_AUTO_CREATE,
          requireVerifiedEmail: parsed.OIDC_REQUIRE_VERIFIED_EMAIL,
        })
      : null,
  });
}

/** All or nothing: an issuer needs its client id, and a client id or secret needs an issuer. */
function oidcConfigProblems(parsed: z.infer<typeof envSchema>): string[] {
  if (parsed.OIDC_ISSUER && !parsed.OIDC_CLIENT_ID) return ['OIDC_CLIENT_ID: required when OIDC_ISSUER is set (OIDC_ISSUER and OIDC_CLIENT_ID go together)'];
  if (!parsed.OIDC_ISSUER && (parsed.OIDC_CLIENT_ID || parsed.OIDC_CLIENT_SECRET)) {
    return ['OIDC_ISSUER: required when OIDC_CLIENT_ID or OIDC_CLIENT_SECRET is set (OIDC_ISSUER and OIDC_CLIENT_ID go together)'];
  }
  return [];
}

/** A generated secret survives restarts, so signed links stay valid across them. */
function loadOrCreateSessionSecret(dataDir: string): string {
  const secretFile = path.join(dataDir, 'session-secret');
  if (existsSync(secretFile)) return readFileSync(secretFile, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Parses `process.env`, or prints the problem and exits: for process entry points only. */
export function loadConfigOrExit(): AppConfig {
  try {
    return parseConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
