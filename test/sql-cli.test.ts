import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { serveAnalyticsInterface, type AnalyticsInterface } from '../infra/analytics/http-interface/index.js';
import { renderTable } from '../infra/analytics/sql-cli/render-table.js';
import { writeDiscovery } from '../infra/analytics/http-interface/discovery.js';

const run = promisify(execFile);
const CLI = new URL('../infra/analytics/sql-cli/main.ts', import.meta.url).pathname;

describe('renderTable', () => {
  it('aligns text left and numbers right, shows NULL and nested values, counts rows', () => {
    const out = renderTable({
      meta: [{ name: 'rule_id', type: 'String' }, { name: 'n', type: 'UInt64' }, { name: 'score', type: 'Nullable(Float64)' }, { name: 'flags', type: 'Array(UInt8)' }],
      data: [['r_country', '12', null, [1, 0]], ['r_velocity_long', '3', 0.5, []]],
    });
    expect(out).toBe(
      [
        'rule_id         │  n │ score │ flags',
        '────────────────┼────┼───────┼──────',
        'r_country       │ 12 │  NULL │ [1,0]',
        'r_velocity_long │  3 │   0.5 │ []',
        '2 rows',
        '',
      ].join('\n'),
    );
  });

  it('says so when a statement answers no columns', () => {
    expect(renderTable({ meta: [], data: [] })).toBe('0 rows\n');
  });
});

/** `npm run sql` against the analytics interface, as a terminal user runs it. */
describe('npm run sql', () => {
  let writer: Analytics;
  let server: AnalyticsInterface;
  let env: NodeJS.ProcessEnv;
  const sql = (args: string[], input?: string) => {
    const child = run(process.execPath, ['--import', 'tsx', CLI, ...args], { env });
    if (input !== undefined) child.child.stdin!.end(input);
    return child;
  };

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-sql-cli-'));
    writer = await createAnalytics({ username: 'default', password: '', database: 'weir', chdbPath: dir });
    await writer.command({ query: 'CREATE TABLE IF NOT EXISTS items (id String, amount Float64) ENGINE = MergeTree ORDER BY id' });
    await writer.insert({ table: 'items', format: 'JSONEachRow', values: [{ id: 'a', amount: 1.5 }, { id: 'b', amount: 20 }] });
    server = await serveAnalyticsInterface({
      chdbPath: dir, database: 'weir', host: '127.0.0.1', port: 0,
      limits: { maxExecutionSeconds: 10, maxResultRows: 1000, maxResultBytes: 1_000_000 },
      users: [{ user: 'analyst', password: 'pw' }], log: pino({ level: 'silent' }),
    });
    const port = new URL(server.url).port;
    env = { ...process.env, ANALYTICS_PORT: port, ANALYTICS_USERS: 'analyst:pw' };
  });
  afterAll(async () => {
    await server?.close();
    await writer?.close();
  });

  it('prints a query result as a table, with the user of ANALYTICS_USERS', async () => {
    const { stdout } = await sql(['SELECT id, amount FROM items ORDER BY id']);
    expect(stdout).toBe(['id │ amount', '───┼───────', 'a  │    1.5', 'b  │     20', '2 rows', ''].join('\n'));
  });

  it('prints another format with --format', async () => {
    const { stdout } = await sql(['--format', 'CSV', 'SELECT id, amount FROM items ORDER BY id']);
    expect(stdout).toBe('"a",1.5\n"b",20\n');
  });

  it('reads queries from a prompt, one a line, reports errors and goes on', async () => {
    const { stdout, stderr } = await sql([], 'SELECT count() AS n FROM items;\nDROP TABLE items\nSELECT max(amount) AS top FROM items\nexit\n').catch((e: { stdout: string; stderr: string }) => e);
    expect(stdout).toContain('n\n─\n2\n1 row');
    expect(stdout).toContain('top\n───\n 20\n1 row');
    expect(stderr).toMatch(/Cannot execute query in readonly mode/);
  });

  it('finds the running process from DATA_DIR when the shell has none of its settings', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-sql-discovery-'));
    await writeDiscovery(dataDir, { url: server.url, user: 'analyst', password: 'pw' });
    const bare = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ANALYTICS_')));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CLI, 'SELECT count() AS n FROM items'], { env: { ...bare, DATA_DIR: dataDir } });
    expect(stdout).toBe('n\n─\n2\n1 row\n');
  });

  it('fails with the server error on wrong credentials', async () => {
    const failure = await sql(['--password', 'nope', 'SELECT 1']).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/Authentication failed/);
  });
});
