/**
 * Mail goes out through a job (jobs/tasks/accountMailTask.ts), and no stored row holds a link:
 *
 * - `mail_outbox` keeps only the delivery record (recipient, kind, status, transport error), so
 *   an operator can see what went out and what failed. Bodies carried the verification or
 *   reset link in clear; the subject goes with them (it is rendered with the body).
 * - `email_tokens.purpose` gains `admin_reset_password`: a reset link a Site Admin created to
 *   hand over. It resets the password like a mailed one but proves nothing about the mailbox,
 *   so using it does not mark the address verified.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`
    ALTER TABLE mail_outbox DROP COLUMN subject, DROP COLUMN text_body, DROP COLUMN html_body;
    ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
    ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('verify_email', 'reset_password', 'admin_reset_password'));
  `);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  // NOT VALID: admin reset links issued meanwhile may still exist; new rows are checked.
  await sequelize.query(`
    ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
    ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('verify_email', 'reset_password')) NOT VALID;
    ALTER TABLE mail_outbox ADD COLUMN subject text NOT NULL DEFAULT '', ADD COLUMN text_body text NOT NULL DEFAULT '', ADD COLUMN html_body text NOT NULL DEFAULT '';
  `);
}
