/**
 * The relying party, through openid-client 6: discovery (cached per process, with a time-out,
 * never cached when it failed, so a provider that comes back is found again), the
 * authorization URL (code flow, PKCE S256, state, nonce), and the code exchange with the ID
 * token checked strictly: its signature against the provider's key set (openid-client checks
 * signatures of token-endpoint ID tokens only with `enableNonRepudiationChecks`), only RS256
 * and ES256, issuer, audience, expiry and nonce. Every failure becomes an `OidcFailure` with
 * its spec code; nothing here throws anything else.
 */
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config.ts';
import type { ErrorCode } from '../http/errorCodes.ts';
import type { FlowState } from './flowCookie.ts';

export type OidcFailureCode = Extract<ErrorCode, `oidc_${string}`> | 'account_disabled' | 'registration_closed';

export class OidcFailure extends Error {
  override name = 'OidcFailure';
  readonly code: OidcFailureCode;
  /** The account the refusal concerns, when there is one (a disabled account): the audit entry's actor. */
  readonly account: { id: string; username: string } | null;
  constructor(code: OidcFailureCode, cause?: unknown, account: { id: string; username: string } | null = null) {
    super(code, { cause });
    this.code = code;
    this.account = account;
  }
}

/** Long enough for a slow provider, short enough that the login page answers while one is down. */
const DISCOVERY_TIMEOUT_SECONDS = 5;
export const ALLOWED_ID_TOKEN_ALGORITHMS: readonly string[] = ['RS256', 'ES256'];

const discoveries = new Map<string, Promise<oidc.Configuration>>();

/** The provider's configuration, discovered once per process and client. */
export function providerConfiguration(config: OidcConfig): Promise<oidc.Configuration> {
  const key = `${config.issuer}\n${config.clientId}`;
  let discovered = discoveries.get(key);
  if (!discovered) {
    discovered = discover(config);
    discoveries.set(key, discovered);
    discovered.catch(() => discoveries.delete(key));
  }
  return discovered;
}

async function discover(config: OidcConfig): Promise<oidc.Configuration> {
  const insecure = new URL(config.issuer).protocol === 'http:'; // loopback only (api/config.ts)
  try {
    return await oidc.discovery(
      new URL(config.issuer),
      config.clientId,
      // Every ID token alg the spec allows; the exact header check follows in `exchangeCode`.
      config.clientSecret === undefined ? {} : { client_secret: config.clientSecret },
      config.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(config.clientSecret),
      {
        timeout: DISCOVERY_TIMEOUT_SECONDS,
        execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
      },
    );
  } catch (error) {
    throw new OidcFailure('oidc_discovery_failed', error);
  }
}

/** The identity's provider as stored: `oidc:<issuer>` with the issuer the provider names itself by. */
export function providerIdOf(configuration: oidc.Configuration): string {
  return `oidc:${configuration.serverMetadata().issuer}`;
}

export async function authorizationUrl(configuration: oidc.Configuration, config: OidcConfig, redirectUri: string, flow: FlowState): Promise<URL> {
  return oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: config.scopes,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: 'S256',
  });
}

export function newFlowSecrets(): Pick<FlowState, 'state' | 'nonce' | 'codeVerifier'> {
  return { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
}

export interface VerifiedIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  preferredUsername: string | null;
}

/**
 * Exchanges the code of `callbackUrl` (whose state the caller compared already) and returns
 * the identity the verified ID token names.
 */
export async function exchangeCode(configuration: oidc.Configuration, callbackUrl: URL, flow: FlowState): Promise<VerifiedIdentity> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw new OidcFailure(exchangeFailureCode(error), error);
  }
  const idToken = tokens.id_token;
  const claims = tokens.claims();
  if (!idToken || !claims || !ALLOWED_ID_TOKEN_ALGORITHMS.includes(jwsAlgorithmOf(idToken))) throw new OidcFailure('oidc_token_invalid');
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  return {
    subject: claims.sub,
    email: text(claims.email)?.toLowerCase() ?? null,
    emailVerified: claims.email_verified === true,
    name: text(claims.name),
    preferredUsername: text(claims.preferred_username),
  };
}

function jwsAlgorithmOf(jwt: string): string {
  try {
    const header = JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header.alg === 'string' ? header.alg : '';
  } catch {
    return '';
  }
}

/** Error codes of openid-client / oauth4webapi that mean the token endpoint did not deliver. */
const EXCHANGE_CODES = new Set(['OAUTH_RESPONSE_BODY_ERROR', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_WWW_AUTHENTICATE_CHALLENGE']);
/** …and those that mean it delivered an ID token we refuse. */
const TOKEN_CODES = new Set([
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_UNSUPPORTED_OPERATION',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_PARSE_ERROR',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
]);

function exchangeFailureCode(error: unknown): OidcFailureCode {
  const code = errorCode(error);
  if (code && EXCHANGE_CODES.has(code)) return 'oidc_exchange_failed';
  if (code && TOKEN_CODES.has(code)) return 'oidc_token_invalid';
  // No answer at all: refused connection, time-out.
  if (error instanceof TypeError || (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))) return 'oidc_exchange_failed';
  return 'oidc_failed';
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
