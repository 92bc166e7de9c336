/**
 * A public page's `/content` JSON is stored as the text that is served, not as jsonb: jsonb
 * reorders keys and reformats, so the bytes a fresh generation serves and the bytes read back
 * from storage would differ, and reading it back would parse and re-serialize every time.
 */
import type { Sequelize } from 'sequelize';

export async function up({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`ALTER TABLE public_documents ALTER COLUMN content TYPE text USING content::text`);
}

export async function down({ sequelize }: { sequelize: Sequelize }): Promise<void> {
  await sequelize.query(`ALTER TABLE public_documents ALTER COLUMN content TYPE jsonb USING content::jsonb`);
}
