import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type MailStatus = 'sent' | 'not_configured' | 'failed';

/** Every mail the instance produced, so flows work and can be followed without SMTP. */
export class MailOutboxEntry extends Model<InferAttributes<MailOutboxEntry>, InferCreationAttributes<MailOutboxEntry>> {
  declare id: CreationOptional<number>;
  declare recipient: string;
  declare subject: string;
  declare textBody: string;
  declare htmlBody: string;
  declare kind: string;
  declare status: MailStatus;
  declare error: string | null;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    MailOutboxEntry.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        recipient: { type: DataTypes.TEXT, allowNull: false },
        subject: { type: DataTypes.TEXT, allowNull: false },
        textBody: { type: DataTypes.TEXT, allowNull: false },
        htmlBody: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'mail_outbox', updatedAt: false },
    );
  }
}
