import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One label on one page (both of the same pond, enforced by the schema). */
export class PageLabel extends Model<InferAttributes<PageLabel>, InferCreationAttributes<PageLabel>> {
  declare pageId: string;
  declare labelId: string;
  declare pondId: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PageLabel.init(
      {
        pageId: { type: DataTypes.UUID, primaryKey: true },
        labelId: { type: DataTypes.UUID, primaryKey: true },
        pondId: { type: DataTypes.UUID, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'page_labels', updatedAt: false },
    );
  }
}
