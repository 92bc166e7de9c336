import { DataTypes, Model, type CreationOptional, type NonAttribute, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { User } from './user.ts';

/** A browser session; only a SHA-256 of its secret is stored. */
export class Session extends Model<InferAttributes<Session, { omit: 'user' }>, InferCreationAttributes<Session, { omit: 'user' }>> {
  declare id: string;
  declare userId: string;
  declare secretHash: Buffer;
  declare expiresAt: Date;
  declare lastSeenIp: string | null;
  declare userAgent: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  /** Loaded with the session when a request is authenticated. */
  declare user?: NonAttribute<User>;

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
