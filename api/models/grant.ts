import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type GrantSubjectType = 'user' | 'signed-in' | 'public';
export type PondRole = 'pond_admin' | 'editor' | 'reader';
export type GrantScopeType = 'pond' | 'label' | 'page';
export type GrantEffect = 'allow' | 'deny';

/** An access rule: subject × role × scope × effect within one pond. */
export class Grant extends Model<InferAttributes<Grant>, InferCreationAttributes<Grant>> {
  declare id: CreationOptional<string>;
  declare pondId: string;
  declare subjectType: GrantSubjectType;
  declare subjectUserId: string | null;
  declare role: PondRole;
  declare scopeType: GrantScopeType;
  declare scopeLabelId: string | null;
  declare scopePageId: string | null;
  declare effect: GrantEffect;
  declare createdBy: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Grant.init(
      {
        id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 },
        pondId: { type: DataTypes.UUID, allowNull: false },
        subjectType: { type: DataTypes.TEXT, allowNull: false },
        subjectUserId: { type: DataTypes.UUID, allowNull: true },
        role: { type: DataTypes.TEXT, allowNull: false },
        scopeType: { type: DataTypes.TEXT, allowNull: false },
        scopeLabelId: { type: DataTypes.UUID, allowNull: true },
        scopePageId: { type: DataTypes.UUID, allowNull: true },
        effect: { type: DataTypes.TEXT, allowNull: false },
        createdBy: { type: DataTypes.UUID, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'grants' },
    );
  }
}
