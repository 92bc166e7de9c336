/**
 * Named prepared statements: the same rows as the unnamed query, on a borrowed connection or
 * the transaction's, and still answered after a migration changed a returned column's type
 * under a connection that had the statement prepared.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../testing/testInstance.ts';
import { queryPrepared } from './preparedStatement.ts';

let instance: TestInstance;

before(async () => {
  instance = await startTestInstance();
  await instance.services.sequelize.query(`CREATE TABLE prepared_probe (id int PRIMARY KEY, value int NOT NULL); INSERT INTO prepared_probe VALUES (1, 10), (2, 20)`);
});

after(async () => {
  await instance.services.sequelize.query(`DROP TABLE IF EXISTS prepared_probe`);
  await instance.close();
});

const PROBE = { name: 'dt-test-prepared-probe', text: `SELECT id, value FROM prepared_probe WHERE id = $1` };

test('a prepared statement answers on a pooled connection and inside a transaction', async () => {
  const { sequelize } = instance.services;
  for (let run = 0; run < 8; run++) assert.deepEqual(await queryPrepared(sequelize, PROBE, [2]), [{ id: 2, value: 20 }]);
  await sequelize.transaction(async (transaction) => {
    await sequelize.query(`UPDATE prepared_probe SET value = 21 WHERE id = 2`, { transaction });
    assert.deepEqual(await queryPrepared(sequelize, PROBE, [2], transaction), [{ id: 2, value: 21 }], 'sees the transaction\'s own write');
  });
  assert.deepEqual(await queryPrepared(sequelize, PROBE, [3]), []);
});

test('a returned column whose type changed under prepared connections is still answered', async () => {
  const { sequelize } = instance.services;
  // Prepare the statement on every pooled connection the next calls may get.
  await Promise.all(Array.from({ length: 4 }, () => queryPrepared(sequelize, PROBE, [1])));
  await sequelize.query(`ALTER TABLE prepared_probe ALTER COLUMN value TYPE text USING value::text`);
  for (let run = 0; run < 8; run++) assert.deepEqual(await queryPrepared(sequelize, PROBE, [1]), [{ id: 1, value: '10' }]);
});
