import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A browser session; only a SHA-256 of its secret is stored. */
export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare id: string;
  declare userId: string;
  declare secretHash: Buffer;
  declare expiresAt: Date;
  declare lastSeenIp: string | null;
  declare userAgent: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Session.init(
      {
        id: { type: DataTypes.TEXT, primaryKey: true },
        userId: { type: DataTypes.UUID, allowNull: false },
        secretHash: { type: DataTypes.BLOB, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        lastSeenIp: { type: DataTypes.TEXT, allowNull: true },
        userAgent: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'sessions' },
    );
  }
}
