import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type PondKind = 'personal' | 'shared';

export class Pond extends Model<InferAttributes<Pond>, InferCreationAttributes<Pond>> {
  declare id: CreationOptional<string>;
  declare slug: string;
  declare name: string;
  declare kind: PondKind;
  declare ownerId: string | null;
  declare settings: CreationOptional<Record<string, unknown>>;
  declare fonts: CreationOptional<Record<string, string>>;
  declare trashedAt: CreationOptional<Date | null>;
  declare trashedBy: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Pond.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        slug: { type: DataTypes.TEXT, allowNull: false },
        name: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        ownerId: { type: DataTypes.UUID, allowNull: true },
        settings: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        fonts: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        trashedAt: { type: DataTypes.DATE, allowNull: true },
        trashedBy: { type: DataTypes.UUID, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'ponds' },
    );
  }
}
