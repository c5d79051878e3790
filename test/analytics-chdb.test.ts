import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnalytics, runMigrations } from '../infra/analytics/index.js';
import type { Migration } from '../infra/analytics/types.js';

const migrations: Migration[] = [
  {
    id: '001_items',
    statements: [
      `CREATE TABLE IF NOT EXISTS items (id String, value Float64, version UInt64, at DateTime64(3, 'UTC'))
       ENGINE = ReplacingMergeTree(version) ORDER BY id`,
      `ALTER TABLE items ADD COLUMN IF NOT EXISTS note Nullable(String)`,
    ],
  },
];

/**
 * The analytics adapter on the ClickHouse engine in process (chDB): the same @clickhouse/client
 * calls the server path uses. chDB binds one directory per process, so this file uses one.
 */
describe('analytics on chDB', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-ch-'));
  const open = () => createAnalytics({ username: 'default', password: '', database: 'contract', chdbPath: dir });

  it('runs migrations idempotently, inserts, and reads the latest version with FINAL', async () => {
    const ch = await open();
    await runMigrations(ch, 'contract', migrations);
    await runMigrations(ch, 'contract', migrations);
    await ch.insert({
      table: 'items',
      format: 'JSONEachRow',
      values: [
        { id: 'a', value: 1, version: 1, at: '2026-01-01T00:00:00.000Z' },
        { id: 'a', value: 2, version: 2, at: '2026-01-01T00:00:01.000Z', note: 'second' },
        { id: 'b', value: 5, version: 1, at: '2026-01-01T00:00:00.000Z' },
      ],
    });
    const rows = await (await ch.query({ query: 'SELECT id, value, note FROM items FINAL ORDER BY id', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([
      { id: 'a', value: 2, note: 'second' },
      { id: 'b', value: 5, note: null },
    ]);
    const db = await (await ch.query({ query: 'SELECT currentDatabase() AS db', format: 'JSONEachRow' })).json();
    expect(db).toEqual([{ db: 'contract' }]);
    await ch.close();
  });

  it('binds query parameters instead of splicing values', async () => {
    const ch = await open();
    const hostile = "a' OR 1=1 --";
    const rows = await (
      await ch.query({ query: 'SELECT count() AS n FROM items FINAL WHERE id = {id:String}', query_params: { id: hostile }, format: 'JSONEachRow' })
    ).json<{ n: string | number }>();
    expect(Number(rows[0]!.n)).toBe(0);
    await ch.close();
  });

  it('keeps data when the client is closed and opened again', async () => {
    const ch = await open();
    const rows = await (await ch.query({ query: 'SELECT count() AS n FROM items FINAL', format: 'JSONEachRow' })).json<{ n: string | number }>();
    expect(Number(rows[0]!.n)).toBe(2);
    await ch.close();
  });

  it('keeps two clients of one process on their own databases', async () => {
    const a = await createAnalytics({ username: 'default', password: '', database: 'tenant_a', chdbPath: dir });
    const b = await createAnalytics({ username: 'default', password: '', database: 'tenant_b', chdbPath: dir });
    for (const [client, label] of [[a, 'a'], [b, 'b']] as const) {
      await client.command({ query: 'CREATE TABLE IF NOT EXISTS marker (label String) ENGINE = MergeTree ORDER BY label' });
      await client.insert({ table: 'marker', values: [{ label }], format: 'JSONEachRow' });
    }
    const read = async (client: typeof a) =>
      (await (await client.query({ query: 'SELECT label, currentDatabase() AS db FROM marker', format: 'JSONEachRow' })).json<{ label: string; db: string }>())[0];
    const interleaved = await Promise.all([read(a), read(b), read(a), read(b)]);
    expect(interleaved).toEqual([
      { label: 'a', db: 'tenant_a' },
      { label: 'b', db: 'tenant_b' },
      { label: 'a', db: 'tenant_a' },
      { label: 'b', db: 'tenant_b' },
    ]);
    await a.close();
    await b.close();
  });
});
