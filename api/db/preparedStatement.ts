/**
 * Named prepared statements, for the few hot statements whose planning costs more than their
 * execution. Postgres plans a named statement per connection and, after five executions with
 * a generic plan no worse than the custom ones, stops planning it at all. Sequelize sends
 * every query unnamed (planned each time), so these go to the pg client underneath: the
 * transaction's connection, or one borrowed from the pool for the single statement.
 *
 * Measured for the public page data (publicDocumentData.ts, one statement with nine CTEs and
 * subqueries): planning 1.4 ms, execution 0.3 ms.
 *
 * A connection's prepared statement outlives a migration that changes the type of a column it
 * returns ("cached plan must not change result type", when processes keep running across a
 * migration): such a connection runs the statement unnamed from then on.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { transactionClient } from '../documents/documentLog.ts';

/** SQLSTATE feature_not_supported, which Postgres raises for a cached plan whose result type changed. */
const STALE_PLAN = '0A000';
const unprepared = new WeakSet<object>();

interface PgClient {
  query<R>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

export interface PreparedStatement {
  /** Unique per statement text: a connection keeps one statement per name. */
  name: string;
  /** `$1`-style parameters. */
  text: string;
}

async function run<R>(client: PgClient, statement: PreparedStatement, values: unknown[], inTransaction: boolean): Promise<R[]> {
  if (unprepared.has(client)) return (await client.query<R>({ text: statement.text, values } as never)).rows;
  try {
    return (await client.query<R>({ name: statement.name, text: statement.text, values })).rows;
  } catch (error) {
    // Inside a transaction the failed statement aborted it: the caller's retry starts over.
    if ((error as { code?: string }).code !== STALE_PLAN) throw error;
    unprepared.add(client);
    if (inTransaction) throw error;
    return (await client.query<R>({ text: statement.text, values } as never)).rows;
  }
}

export async function queryPrepared<R>(sequelize: Sequelize, statement: PreparedStatement, values: unknown[], transaction?: Transaction): Promise<R[]> {
  if (transaction) return run<R>(transactionClient(transaction) as unknown as PgClient, statement, values, true);
  const manager = sequelize.connectionManager;
  const connection = (await manager.getConnection({ type: 'read' })) as unknown as PgClient;
  try {
    return await run<R>(connection, statement, values, false);
  } finally {
    manager.releaseConnection(connection as never);
  }
}
