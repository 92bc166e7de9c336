/**
 * The audit event catalogue (spec: Audit actions; docs/audit.md lists it for people). Every
 * action the code records is named here, so `recordAudit` takes nothing else (the type) and
 * docs/audit.md cannot drift from it (auditActions.test.ts).
 *
 * The catalogue is versioned, as the spec asks: v1.3 is the revision that added
 * `auth.identity_linked`; each later revision adds its actions under its own number. Actions
 * older than v1.3 carry '1.2' (the revisions before it were not kept apart).
 */
export const AUDIT_CATALOGUE_VERSION = '1.5';

/** Each action and the catalogue revision that added it. */
export const AUDIT_ACTIONS = {
  // Accounts and sign-in.
  'auth.signup': '1.2',
  'auth.login': '1.2',
  'auth.login_failed': '1.2',
  'auth.logout': '1.2',
  'auth.email_verified': '1.2',
  'auth.verification_resent': '1.2',
  'auth.password_changed': '1.2',
  'auth.password_change_failed': '1.2',
  'auth.password_reset_requested': '1.2',
  'auth.password_reset': '1.2',
  'auth.feed_token_created': '1.2',
  'auth.feed_token_rotated': '1.2',
  'auth.feed_token_revoked': '1.2',
  'auth.identity_linked': '1.3',
  'auth.identity_unlinked': '1.5',
  // Personal access tokens and what they write.
  'api.token_created': '1.2',
  'api.token_revoked': '1.2',
  'api.write': '1.2',
  // Ponds, their members, labels and access rules.
  'pond.created': '1.2',
  'pond.updated': '1.2',
  'pond.trashed': '1.2',
  'pond.restored': '1.2',
  'member.added': '1.2',
  'member.role_changed': '1.2',
  'member.removed': '1.2',
  'label.deleted': '1.2',
  'grant.created': '1.2',
  'grant.deleted': '1.2',
  'grant.section_labelled': '1.2',
  // Setup and instance settings.
  'setup.admin_created': '1.2',
  'setup.instance_saved': '1.2',
  'setup.registration_saved': '1.2',
  'setup.smtp_saved': '1.2',
  'setup.smtp_skipped': '1.2',
  'setup.smtp_test_failed': '1.2',
  'setup.completed': '1.2',
  'settings.changed': '1.2',
  // Site administration.
  'admin.user_created': '1.4',
  'admin.user_disabled': '1.2',
  'admin.user_enabled': '1.2',
  'admin.user_confirmed': '1.2',
  'admin.user_verification_resent': '1.2',
  'admin.user_reset_link_created': '1.2',
  'admin.user_deleted': '1.2',
  'admin.site_admin_granted': '1.2',
  'admin.site_admin_revoked': '1.2',
  'admin.quota_set': '1.4',
  'admin.quota_cleared': '1.4',
  'admin.job_run': '1.2',
  // Files.
  'file.integrity_failed': '1.2',
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
