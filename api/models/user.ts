import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** `deleted`: scrubbed by a Site Admin's delete (api/commands/accountDeletion.ts); the row stays for what the account authored. */
export type UserStatus = 'unconfirmed' | 'ACTIVE' | 'disabled' | 'deleted';
export type DigestFrequency = 'hourly' | 'daily' | 'off';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>;
  declare username: string;
  declare email: string;
  declare displayName: string;
  declare locale: 'de' | 'en' | null;
  declare status: CreationOptional<UserStatus>;
  declare isSiteAdmin: CreationOptional<boolean>;
  declare passwordHash: string | null;
  declare emailVerifiedAt: Date | null;
  declare digestFrequency: CreationOptional<DigestFrequency>;
  declare autoWatchOwnPages: CreationOptional<boolean>;
  declare autoWatchOnComment: CreationOptional<boolean>;
  declare lastLoginAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    User.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        username: { type: DataTypes.TEXT, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: false },
        displayName: { type: DataTypes.TEXT, allowNull: false },
        locale: { type: DataTypes.TEXT, allowNull: true },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'unconfirmed' },
        isSiteAdmin: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        passwordHash: { type: DataTypes.TEXT, allowNull: true },
        emailVerifiedAt: { type: DataTypes.DATE, allowNull: true },
        digestFrequency: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'hourly' },
        autoWatchOwnPages: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        autoWatchOnComment: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        lastLoginAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users' },
    );
  }
}
