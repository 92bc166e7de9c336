/**
 * The Sequelize connection. One per process; models are bound to it by `initModels`.
 */
import pg from 'pg';
import { Sequelize } from 'sequelize';

// Postgres `bigint` (counts, byte sizes) fits a JS number for every value we store.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export function createSequelize(databaseUrl: string, options: { poolMax?: number } = {}): Sequelize {
  return new Sequelize(databaseUrl, {
    dialect: 'postgres',
    dialectModule: pg,
    logging: false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: true },
  });
}
