/**
 * The Sequelize connection. One per process; models are bound to it by `initModels`.
 */
import pg from 'pg';
import { Sequelize } from 'sequelize';

// Postgres `bigint` (counts, byte sizes) fits a JS number for every value we store.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/**
 * pg emits `error` on a client when the server ends its connection (restart, failover,
 * `pg_terminate_backend`). If that happens before Sequelize has attached its own listener,
 * the event is unhandled and kills the process. The query on that connection still fails
 * and the pool replaces the connection, so a listener from birth is all that is needed.
 */
class ConnectionClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

/** pg with our client; inherits everything else (types, Pool) without touching pg's lazy getters. */
const pgWithResilientClients = Object.create(pg, { Client: { value: ConnectionClient } }) as typeof pg;

export function createSequelize(databaseUrl: string, options: { poolMax?: number } = {}): Sequelize {
  return new Sequelize(databaseUrl, {
    dialect: 'postgres',
    dialectModule: pgWithResilientClients,
    logging: false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: true },
  });
}
