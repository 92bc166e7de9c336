/**
 * English texts of the mails the instance sends. `{name}` stands for a value filled in when
 * the mail is rendered (api/mail/templates.ts). The German catalogue must have the same keys.
 */
export const mailTextsEn = {
  greeting: 'Hello {displayName},',
  'verify_email.subject': 'Please confirm your e-mail address for {instanceName}',
  'verify_email.body': 'please confirm your e-mail address so you can sign in. The link is valid for 24 hours.',
  'verify_email.link': 'Confirm e-mail address',
  'verify_email.footer': 'If you did not sign up, you can ignore this e-mail.',
  'reset_password.subject': 'Reset your password for {instanceName}',
  'reset_password.body': 'use this link to choose a new password. It is valid for one hour; afterwards you are signed out everywhere.',
  'reset_password.link': 'Choose a new password',
  'reset_password.footer': 'If you did not ask for this, ignore this e-mail; your password stays unchanged.',
  'smtp_test.subject': 'Test e-mail from {instanceName}',
  'smtp_test.body': 'Sending e-mail works.',
} as const satisfies Record<string, string>;

export type MailTextKey = keyof typeof mailTextsEn;
