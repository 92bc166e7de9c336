import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type QuotaName = 'editors_per_pond' | 'readers_per_pond' | 'storage_bytes' | 'max_file_bytes';

/** A quota set for one pond or one user instead of the instance default; null = unlimited. */
export class QuotaOverride extends Model<InferAttributes<QuotaOverride>, InferCreationAttributes<QuotaOverride>> {
  declare id: CreationOptional<string>;
  declare pondId: string | null;
  declare userId: string | null;
  declare quota: QuotaName;
  declare value: number | null;
  declare updatedBy: string | null;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    QuotaOverride.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        pondId: { type: DataTypes.UUID, allowNull: true },
        userId: { type: DataTypes.UUID, allowNull: true },
        quota: { type: DataTypes.TEXT, allowNull: false },
        // Parsed to a number by our pg type parser (api/db/database.ts).
        value: { type: DataTypes.BIGINT, allowNull: true },
        updatedBy: { type: DataTypes.UUID, allowNull: true },
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'quota_overrides', createdAt: false },
    );
  }
}
