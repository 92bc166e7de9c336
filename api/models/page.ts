import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A page of a pond: flat slug, tree through `parentId`, order through a fractional `position`. */
export class Page extends Model<InferAttributes<Page>, InferCreationAttributes<Page>> {
  declare id: CreationOptional<string>;
  declare pondId: string;
  declare slug: string;
  declare title: string;
  declare parentId: string | null;
  declare position: string;
  declare trashedAt: CreationOptional<Date | null>;
  declare trashedBy: CreationOptional<string | null>;
  declare initialMarkdown: CreationOptional<string | null>;
  declare createdBy: string | null;
  declare updatedBy: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Page.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        pondId: { type: DataTypes.UUID, allowNull: false },
        slug: { type: DataTypes.TEXT, allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        parentId: { type: DataTypes.UUID, allowNull: true },
        position: { type: DataTypes.TEXT, allowNull: false },
        trashedAt: { type: DataTypes.DATE, allowNull: true },
        trashedBy: { type: DataTypes.UUID, allowNull: true },
        initialMarkdown: { type: DataTypes.TEXT, allowNull: true },
        createdBy: { type: DataTypes.UUID, allowNull: true },
        updatedBy: { type: DataTypes.UUID, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'pages' },
    );
  }
}
