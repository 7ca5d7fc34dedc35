// Drops this run's MySQL test database (see mysqlTestUrl in helpers/test-app.ts).
const { createConnection } = require('mysql2/promise');

module.exports = async () => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const base = new URL(url).pathname.replace(/^\//, '');
  if (!/test/i.test(base)) return;
  const server = new URL(url);
  server.pathname = '/';
  const connection = await createConnection({ uri: server.toString() });
  await connection.query(`DROP DATABASE IF EXISTS \`${base}_${process.env.E2E_RUN_ID}\``);
  await connection.end();
};
