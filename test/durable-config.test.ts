import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics, runMigrations } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { DURABLE_TABLES } from '../infra/analytics/durable-tables.js';
import { services } from '../services/index.js';

/** Configuration and audit tables fsync each insert and its part directory before it is acknowledged, on chDB. */
describe('durable configuration tables', () => {
  let ch: Analytics;
  const database = 'weir';
  const migrations = services.flatMap((s) => s.migrations);
  const showCreate = async (table: string) => (await (await ch.query({ query: `SHOW CREATE TABLE ${database}.${table}`, format: 'TabSeparatedRaw' })).text());

  beforeAll(async () => {
    ch = await createAnalytics({ username: 'default', password: '', database, chdbPath: await mkdtemp(path.join(os.tmpdir(), 'weir-durable-')) });
  });
  afterAll(async () => {
    await ch?.close();
  });

  it('migrates tables created without the settings, and every table of the list exists and carries them', async () => {
    // The tables as a start-up before this change left them.
    for (const m of migrations) for (const statement of m.statements) await ch.command({ query: statement.replaceAll('{db}', database) });
    expect(await showCreate('rule_rules')).not.toContain('fsync_after_insert');

    await runMigrations(ch, database, migrations);
    for (const table of DURABLE_TABLES) {
      const ddl = await showCreate(table);
      expect(ddl, table).toContain('fsync_after_insert = 1');
      expect(ddl, table).toContain('fsync_part_directory = 1');
    }
    // Twice is the same: start-ups repeat it.
    await runMigrations(ch, database, migrations);
    expect(await showCreate('counter_configs')).toMatch(/fsync_after_insert = 1, fsync_part_directory = 1$/m);
  });
});
