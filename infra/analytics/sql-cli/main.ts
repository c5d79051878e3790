import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type DataFormat } from '@clickhouse/client';
import { readDiscovery } from '../http-interface/discovery.js';
import { renderTable, type CompactResult } from './render-table.js';

/**
 * `npm run sql -- [options] ["SELECT ..."]`: a query to the analytics interface (ClickHouse's HTTP
 * interface of a running Weir, ANALYTICS_PORT), printed as a table or, with --format, as ClickHouse
 * writes that format. Without a query, a prompt: one query per line, `exit` to leave.
 */
const USAGE = `usage: npm run sql -- [--format <ClickHouse format>] [--url <http://host:port>] [--user <name>] [--password <pw>] [--database <db>] ["<query>"]
  defaults: ANALYTICS_URL, else http://ANALYTICS_HOST:ANALYTICS_PORT; ANALYTICS_USER and ANALYTICS_PASSWORD,
            else the first entry of ANALYTICS_USERS; else the running process's own interface and first
            user, from DATA_DIR/analytics-interface.json (DATA_DIR default ./data); else 127.0.0.1:8123`;

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: 'string', short: 'f' },
      url: { type: 'string' },
      user: { type: 'string', short: 'u' },
      password: { type: 'string' },
      database: { type: 'string', short: 'd' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const env = process.env;
  const [firstUser = '', ...firstPassword] = (env.ANALYTICS_USERS ?? '').split(',')[0]!.trim().split(':');
  const running = readDiscovery(env.DATA_DIR ?? './data');
  const envUrl = env.ANALYTICS_URL ?? (env.ANALYTICS_PORT ? `http://${env.ANALYTICS_HOST ?? '127.0.0.1'}:${env.ANALYTICS_PORT}` : undefined);
  return {
    help: values.help ?? false,
    query: positionals.join(' ').trim(),
    format: values.format,
    database: values.database,
    url: values.url ?? envUrl ?? running?.url ?? 'http://127.0.0.1:8123',
    user: values.user ?? env.ANALYTICS_USER ?? (firstUser || running?.user || 'default'),
    password: values.password ?? env.ANALYTICS_PASSWORD ?? (firstUser ? firstPassword.join(':') : (running?.password ?? '')),
  };
}

async function runOne(client: ClickHouseClient, query: string, format: string | undefined): Promise<void> {
  const { stream } = await client.exec({ query, clickhouse_settings: { default_format: (format ?? 'JSONCompact') as DataFormat } });
  let text = '';
  for await (const chunk of stream) {
    if (format) process.stdout.write(chunk as Buffer);
    else text += String(chunk);
  }
  if (!format) process.stdout.write(text.trim() === '' ? 'Ok.\n' : renderTable(JSON.parse(text) as CompactResult));
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function main(): Promise<number> {
  const o = options();
  if (o.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const client = createClient({ url: o.url, username: o.user, password: o.password, database: o.database, log: { level: ClickHouseLogLevel.OFF } });
  try {
    if (o.query) {
      await runOne(client, o.query, o.format);
      return 0;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'weir :) ', terminal: process.stdin.isTTY });
    rl.prompt();
    let failed = false;
    for await (const line of rl) {
      const query = line.trim().replace(/;+$/, '');
      if (query === 'exit' || query === 'quit') break;
      if (query !== '') {
        try {
          await runOne(client, query, o.format);
        } catch (err) {
          failed = true;
          console.error(message(err));
        }
      }
      rl.prompt();
    }
    rl.close();
    return failed && !process.stdin.isTTY ? 1 : 0;
  } catch (err) {
    console.error(message(err));
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
