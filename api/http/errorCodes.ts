/**
 * Every stable error code the service answers with, and its HTTP status.
 * The spec's codes (including those of features built later) and the ones we added; each
 * must have a German and an English text (`api/i18n/errorMessages.*.ts`, checked by a test).
 * The browser imports this list too.
 */
export const ERROR_STATUS = {
  // Request shape
  invalid_request: 400,
  validation_failed: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_found: 404,
  method_not_allowed: 405,
  internal_error: 500,
  // Authentication and access
  unauthenticated: 401,
  forbidden: 403,
  csrf_failed: 403,
  rate_limited: 429,
  invalid_credentials: 401,
  /** `POST /users/me/password` with a wrong current password (the caller stays signed in, hence not 401). */
  current_password_wrong: 403,
  account_disabled: 403,
  email_unverified: 403,
  registration_closed: 403,
  username_taken: 409,
  email_taken: 409,
  token_invalid: 400,
  token_expired: 410,
  cannot_modify_self: 409,
  last_site_admin: 409,
  /** `POST /admin/users/:id/confirm` on an account whose address is verified already. */
  account_already_confirmed: 409,
  /** `DELETE /admin/users/:id` while the account owns shared ponds (`details.ponds`: their slugs). */
  user_owns_ponds: 409,
  // Setup, settings, maintenance
  setup_required: 503,
  setup_completed: 410,
  setup_admin_exists: 409,
  setup_incomplete: 409,
  smtp_test_failed: 422,
  unknown_setting: 400,
  setting_locked: 400,
  maintenance_mode: 503,
  /** `POST /admin/system/jobs/:name/run`: no maintenance job of that name (or not built yet). */
  job_not_found: 404,
  /** The run-mutex: a run of that job is under way or about to start. */
  job_already_running: 409,
  // Ponds, members, grants, labels
  slug_taken: 409,
  pond_trashed: 409,
  personal_pond_protected: 409,
  personal_pond_single_admin: 409,
  owner_membership: 409,
  last_pond_admin: 409,
  member_exists: 409,
  user_not_found: 404,
  grant_exists: 409,
  label_name_taken: 409,
  label_depth_exceeded: 409,
  label_cycle: 409,
  label_governs_access: 403,
  // Pages and tree
  page_cycle: 409,
  page_depth_exceeded: 409,
  page_trashed: 404,
  /** Restore or purge of a page that is live. */
  page_not_trashed: 409,
  // Comments
  comment_empty: 400,
  /** `details.maxLength`: the limit in characters. */
  comment_too_long: 400,
  comment_reply_to_reply: 400,
  comment_anchor_on_reply: 400,
  /** Resolve or reopen of a reply: only a thread's root carries its state. */
  comment_not_root: 400,
  comment_not_author: 403,
  /** Deleting a root that has replies: pond admins only (it takes the replies with it). */
  comment_has_replies: 403,
  // Plugins
  plugin_not_optional: 409,
  // Public API and tokens
  scope_required: 403,
  /** The instance switch `api.enabled` is off: the public REST API answers nothing else. */
  api_disabled: 404,
  /** The instance switch `mcp.enabled` is off. */
  mcp_disabled: 404,
  /** A bearer secret that is no personal access token of an active account. */
  access_token_invalid: 401,
  access_token_expired: 401,
  access_token_revoked: 401,
  /** `POST /users/me/api-tokens` while the account holds `MAX_LIVE_API_TOKENS` live tokens (`details.limit`): revoke one first. */
  token_limit_reached: 409,
  /** `POST /users/me/api-tokens` with an `expiresAt` that is not in the future (a validation refusal, hence the status of `validation_failed`). */
  token_expiry_past: 400,
  // Files
  upload_type_not_allowed: 415,
  attachment_integrity_failure: 500,
  quota_exceeded: 413,
  // Conversion, import, export
  converter_unavailable: 503,
  converter_timeout: 504,
  conversion_failed: 422,
  renderer_unavailable: 503,
  render_failed: 422,
  import_unsupported_format: 415,
  import_vault_invalid_zip: 400,
  import_vault_too_large: 413,
  // External sign-in
  oidc_failed: 502,
  oidc_cancelled: 400,
  oidc_state_invalid: 400,
  oidc_exchange_failed: 502,
  oidc_token_invalid: 401,
  oidc_discovery_failed: 502,
  oidc_email_missing: 400,
  oidc_email_unverified: 403,
  oidc_link_required: 409,
  oidc_identity_taken: 409,
  identity_last_sign_in_method: 409,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * Messages more specific than their code's own text, each for one code: the code and status
 * stay the contract, the message only tells a person what to check. `pond_unreachable` is the
 * public API's `not_found` for a pond named by slug that the token cannot reach (missing,
 * unreadable by its owner, not opted in to the channel, outside the token's pond restriction):
 * one answer for all of them, so existence stays hidden, and one that names every possibility.
 */
export const MESSAGE_VARIANTS = {
  pond_unreachable: 'not_found',
} as const satisfies Record<string, ErrorCode>;

export type MessageVariant = keyof typeof MESSAGE_VARIANTS;
