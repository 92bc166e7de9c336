/**
 * A real OpenID Connect provider (oidc-provider 9) for tests, on a loopback port. Its
 * interaction has no HTML: whoever follows the authorization redirect (an HTTP cookie jar
 * or Chromium) is signed in as the account set by `setNextLogin`, or refused with
 * `access_denied` after `setNextLogin('cancel')`. Every authorization asks the interaction:
 * the provider ignores its own session cookie, so each login goes through `setNextLogin`.
 *
 * Bad tokens for the refusal tests: `clientOverrides: { id_token_signed_response_alg:
 * 'HS256' }` makes the provider itself sign ID tokens with the client secret; `rewriteIdToken`
 * rewrites the ID token of the token response (claims changed, re-signed with the provider's
 * own key, or unsigned with `alg: none`, which oidc-provider 9 does not issue by itself).
 */
import { createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { interactionPolicy, type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';

export interface OidcTestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

export type IdTokenSigning = 'provider' | 'foreign' | 'none' | 'HS256';

export interface IdTokenRewrite {
  claims: Record<string, unknown>;
  /**
   * `provider` (default): the provider's own signing key (valid signature); `foreign`: a key of
   * the same type and `kid` that is not in the provider's key set; `none`: unsigned;
   * `HS256`: the client secret.
   */
  signing?: IdTokenSigning;
}

export type IdTokenRewriter = (claims: Record<string, unknown>) => IdTokenRewrite;

export interface OidcTestProviderOptions {
  /** Accounts the provider knows from the start; `setNextLogin` adds more. */
  accounts?: OidcTestAccount[];
  /** The client's allowed redirect URIs, e.g. `<BASE_URL>/api/v1/auth/oidc/callback`. */
  redirectUris: string[];
  /** Merged into the one client's metadata (e.g. `{ id_token_signed_response_alg: 'HS256' }`). */
  clientOverrides?: Partial<ClientMetadata>;
  /** The provider's signing key type for ID tokens (default RS256). */
  keyAlgorithm?: 'RS256' | 'ES256';
  /** Default: a free port chosen by the system. */
  port?: number;
}

export interface OidcTestProvider {
  /** `http://127.0.0.1:<port>`, no trailing slash: the value for OIDC_ISSUER. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next interactions sign in (until set again), or that they cancel (`access_denied`). */
  setNextLogin: (login: OidcTestAccount | 'cancel') => void;
  /** Rewrites the ID token of every following token response; null stops rewriting. */
  rewriteIdToken: (rewriter: IdTokenRewriter | null) => void;
  /** How many authorization codes were exchanged at the token endpoint so far. */
  tokenRequests: () => number;
  close: () => Promise<void>;
}

interface SigningKey {
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
  kid: string;
  alg: 'RS256' | 'ES256';
}

function createSigningKey(alg: 'RS256' | 'ES256'): SigningKey {
  const pair = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomUUID();
  return { privateKey: pair.privateKey, jwk: { ...pair.privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' }, kid, alg };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

function encodeIdToken(claims: Record<string, unknown>, signing: IdTokenSigning, providerKey: SigningKey, clientSecret: string): string {
  const key = signing === 'foreign' ? { ...createSigningKey(providerKey.alg), kid: providerKey.kid } : providerKey;
  const header = signing === 'none' ? { alg: 'none', typ: 'JWT' } : signing === 'HS256' ? { alg: 'HS256', typ: 'JWT' } : { alg: key.alg, typ: 'JWT', kid: key.kid };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  if (signing === 'none') return `${input}.`;
  if (signing === 'HS256') return `${input}.${createHmac('sha256', clientSecret).update(input).digest('base64url')}`;
  const signature =
    key.alg === 'RS256' ? sign('sha256', Buffer.from(input), key.privateKey) : sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

function decodeClaims(idToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The login prompt on every authorization, so a provider session never skips `setNextLogin`. */
function alwaysAskPolicy() {
  const policy = interactionPolicy.base();
  const login = policy.get('login');
  login?.checks.add(
    new interactionPolicy.Check('fixture_always', 'the test provider asks on every authorization', (ctx) =>
      // Once this authorization's own interaction signed someone in, it goes on.
      ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  return policy;
}

export async function startOidcTestProvider(options: OidcTestProviderOptions): Promise<OidcTestProvider> {
  const accounts = new Map<string, OidcTestAccount>((options.accounts ?? []).map((account) => [account.sub, account]));
  let nextLogin: OidcTestAccount | 'cancel' | null = null;
  let rewriter: IdTokenRewriter | null = null;
  let exchanges = 0;
  const key = createSigningKey(options.keyAlgorithm ?? 'RS256');
  const clientId = `dorfteich-test-${randomUUID().slice(0, 8)}`;
  const clientSecret = `secret-${randomUUID()}-${randomUUID()}`;

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: key.alg,
        ...options.clientOverrides,
      },
    ],
    jwks: { keys: [key.jwk as never] },
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256', 'HS256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    // Claims in the ID token itself, as Keycloak and Authentik put them there by default.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account }) };
    },
    features: { devInteractions: { enabled: false } },
    interactions: { policy: alwaysAskPolicy(), url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    renderError: (ctx, out) => {
      ctx.type = 'text/plain';
      ctx.body = `oidc test provider error: ${out.error} ${out.error_description ?? ''}`;
    },
  });

  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200) return;
    exchanges += 1;
    const body = ctx.body as { id_token?: string } | undefined;
    if (!rewriter || !body?.id_token) return;
    const rewrite = rewriter(decodeClaims(body.id_token));
    ctx.body = { ...body, id_token: encodeIdToken(rewrite.claims, rewrite.signing ?? 'provider', key, clientSecret) };
  });

  const providerCallback = provider.callback();

  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const login = nextLogin;
    if (login === 'cancel') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User cancelled' }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'login') {
      if (!login) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('oidc test provider: setNextLogin was not called');
        return;
      }
      accounts.set(login.sub, login);
      await provider.interactionFinished(req, res, { login: { accountId: login.sub, remember: false } }, { mergeWithLastSubmission: false });
      return;
    }
    // Consent: grant whatever the client asked for.
    const grant = new provider.Grant({ accountId: details.session?.accountId ?? '', clientId: String(details.params.client_id) });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  server.on('request', (req, res) => {
    // Each authorization request starts without the provider's session (its resume keeps the
    // new one): each login asks `setNextLogin`, and a second account in the same browser is no
    // account switch (which would ask to log out first).
    if (/^\/auth(\?|$)/.test(req.url ?? '')) {
      if (req.headers.cookie) req.headers.cookie = req.headers.cookie.split(/;\s*/).filter((pair) => !pair.startsWith('_session')).join('; ');
      res.appendHeader('Set-Cookie', ['_session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT', '_session.sig=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    }
    if (req.url?.startsWith('/interaction/')) {
      interact(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`oidc test provider interaction failed: ${String(error)}`);
      });
      return;
    }
    void providerCallback(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    setNextLogin: (login) => {
      nextLogin = login;
      if (login !== 'cancel') accounts.set(login.sub, login);
    },
    rewriteIdToken: (next) => {
      rewriter = next;
    },
    tokenRequests: () => exchanges,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
