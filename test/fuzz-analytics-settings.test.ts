import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { serveAnalyticsInterface, type AnalyticsInterface } from '../infra/analytics/http-interface/index.js';

// A file of its own: chDB holds one data directory per process, and the route fuzzers' Weir
// processes hold another; opening a second one in the same process failed now and then.
describe('fuzz: random URL settings on the analytics interface', () => {
  const secret = 'FUZZ-SECRET-c0ffee42';
  let dir = '';
  let writer: Analytics;
  let server: AnalyticsInterface;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weir-fuzz-analytics-'));
    await writeFile(path.join(dir, 'secret.key'), `${secret}\n`);
    writer = await createAnalytics({ username: 'default', password: '', database: 'weir', chdbPath: path.join(dir, 'chdb') });
    server = await serveAnalyticsInterface({
      chdbPath: path.join(dir, 'chdb'), database: 'weir', host: '127.0.0.1', port: 0,
      limits: { maxExecutionSeconds: 5, maxResultRows: 1000, maxResultBytes: 1_000_000 },
      users: [{ user: 'analyst', password: 'pw' }], log: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await writer?.close();
  });

  const settingName = fc.oneof(
    fc.constantFrom('format_template_row', 'format_template_resultset', 'format_schema', 'output_format_schema', 'format_template_rows_between_delimiter',
      'input_format_avro_schema_registry_url', 'user_files_path', 'readonly', 'max_result_rows', 'max_execution_time', 'max_memory_usage',
      'output_format_json_quote_64bit_integers', 'format_csv_delimiter', 'date_time_output_format', 'extremes', 'output_format_pretty_grid_charset'),
    fc.stringMatching(/^[a-z_][a-z0-9_]{0,40}$/),
  );
  const settingValue = fc.oneof(
    fc.constant(path.join(dir || os.tmpdir(), 'secret.key')),
    fc.constantFrom('0', '1', '-1', '1e99', 'ascii', 'iso', 'unix_timestamp', ',', ''),
    fc.string({ maxLength: 40 }),
  );

  it('never answers a 5xx and never returns the content of a file named in a setting', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(settingName, settingValue, { maxKeys: 4 }),
        fc.constantFrom('TabSeparated', 'JSON', 'Template', 'CSV', 'Pretty', 'CustomSeparated', 'Protobuf'),
        async (settings, format) => {
          const file = path.join(dir, 'secret.key');
          const query = new URLSearchParams({ user: 'analyst', password: 'pw', default_format: format });
          for (const [name, value] of Object.entries(settings)) query.set(name, value.startsWith(os.tmpdir()) ? file : value);
          const res = await fetch(`${server.url}/?${query}`, { method: 'POST', body: 'SELECT number, toString(number) AS s FROM numbers(3)' });
          const text = await res.text();
          const what = `${query} -> ${res.status}: ${text.slice(0, 300)}`;
          expect(res.status, what).toBeLessThan(500);
          expect(text, what).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});
