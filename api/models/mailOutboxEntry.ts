import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type MailStatus = 'sent' | 'not_configured' | 'failed';

/**
 * The delivery record of every mail the instance produced: who, what kind, and whether it
 * went out. No body: bodies carry verification and reset links.
 */
export class MailOutboxEntry extends Model<InferAttributes<MailOutboxEntry>, InferCreationAttributes<MailOutboxEntry>> {
  declare id: CreationOptional<number>;
  declare recipient: string;
  declare kind: string;
  declare status: MailStatus;
  declare error: string | null;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    MailOutboxEntry.init(
      {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        recipient: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'mail_outbox', updatedAt: false },
    );
  }
}
