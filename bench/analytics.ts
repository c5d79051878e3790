/**
 * Read latency of the documented analytics queries (docs/analytics.md) over a seeded `decisions`
 * table on chDB, as the two readers run them: the tenant API's path (the process's own client) and
 * an analyst's (@clickhouse/client through the ClickHouse HTTP interface, a read-only session per
 * query). Seeds WEIR_BENCH_ANALYTICS_ROWS decisions (default 10,000,000) over 30 days and 50
 * organizations, generated inside the engine, plus a tenth as many screenings.
 * Writes bench/results/analytics.md. Run: `npx tsx bench/analytics.ts`.
 */
import './scratch.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { pino } from 'pino';
import { createAnalytics, runMigrations } from '../infra/analytics/index.js';
import { serveAnalyticsInterface } from '../infra/analytics/http-interface/index.js';
import { services } from '../services/index.js';
import { QUERIES, type QueryName } from '../domain/analytics/queries.js';

const ROWS = Number(process.env.WEIR_BENCH_ANALYTICS_ROWS ?? 10_000_000);
const RUNS = Number(process.env.WEIR_BENCH_ANALYTICS_RUNS ?? 30);
const ORGS = 50;
const DAYS = 30;
const CHUNK = 1_000_000;
const END = '2030-03-31 00:00:00.000';

const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-bench-analytics-'));
const db = 'bench';
const ch = await createAnalytics({ username: 'default', password: '', database: db, chdbPath: dir });
await runMigrations(ch, db, services.flatMap((s) => s.migrations));

const seedStarted = performance.now();
// Five rules per organization, two versions each; decisions name version 1 or 2.
await ch.command({
  query: `INSERT INTO rule_history SELECT concat('org_', toString(o)), concat('r', toString(r)), v,
    concat('{"name":"rule ', toString(r), ' v', toString(v), '","threshold":10,"evaluations":[{"name":"a"},{"name":"b"}]}')
    FROM (SELECT number AS o FROM numbers(${ORGS})) ARRAY JOIN range(5) AS r ARRAY JOIN [1, 2] AS v`,
});
for (let first = 0; first < ROWS; first += CHUNK) {
  const n = Math.min(CHUNK, ROWS - first);
  await ch.command({
    query: `INSERT INTO decisions (org_id, transaction_id, entity_id, triggered_rules_count, score, rule_results, transaction, decided_at, version)
      SELECT org_id, transaction_id, entity_id, arrayCount(x -> x.3 = 1, results), arraySum(x -> x.3 * x.4, results), results, '{}', decided_at, 1
      FROM (
        SELECT
          concat('org_', toString(number % ${ORGS})) AS org_id,
          concat('tx', toString(number)) AS transaction_id,
          concat('u', toString(cityHash64(number, 1) % 100000)) AS entity_id,
          arrayMap(i -> (concat('r', toString(i)), toUInt64(1 + number % 2), toUInt8(cityHash64(number, i) % 10 = 0), 10., [toUInt8(1), toUInt8(0)]), range(5)) AS results,
          toDateTime64('${END}', 3, 'UTC') - toIntervalMillisecond(cityHash64(number, 2) % ${DAYS * 86_400_000}) AS decided_at
        FROM numbers(${first}, ${n})
      )`,
  });
}
await ch.command({
  query: `INSERT INTO screenings SELECT concat('a', toString(number)), concat('org_', toString(number % ${ORGS})), 'Someone',
    ['CLEAR', 'CLEAR', 'CLEAR', 'REVIEW', 'BLOCK'][1 + number % 5], 0.9, NULL, 'v1',
    toDateTime64('${END}', 3, 'UTC') - toIntervalMillisecond(cityHash64(number, 3) % ${DAYS * 86_400_000}),
    if(number % 5 = 0, '{"response":{"match":null}}', concat('{"response":{"match":{"source":"', ['OFAC SDN', 'UN', 'EU'][1 + number % 3], '"}}}'))
    FROM numbers(${Math.ceil(ROWS / 10)})`,
});
await ch.command({
  query: `INSERT INTO counter_configs SELECT concat('org_', toString(number % ${ORGS})), intDiv(number, ${ORGS}) + 1, '{"table_name":"entity_counters","counters":[]}', '[]', 'w', now64(3) FROM numbers(${ORGS * 5})`,
});
const seedSeconds = (performance.now() - seedStarted) / 1000;
const parts = await (await ch.query({ query: `SELECT count() AS parts, sum(rows) AS rows, formatReadableSize(sum(bytes_on_disk)) AS size FROM system.parts WHERE database = '${db}' AND table = 'decisions' AND active`, format: 'JSONEachRow' })).json<{ parts: string; rows: string; size: string }>();

const server = await serveAnalyticsInterface({
  chdbPath: dir, database: db, host: '127.0.0.1', port: 0,
  limits: { maxExecutionSeconds: 60, maxResultRows: 1_000_000, maxResultBytes: 1 << 30 },
  users: [{ user: 'bench', password: 'bench' }], log: pino({ level: 'silent' }),
});
const analyst = createClient({ url: server.url, username: 'bench', password: 'bench', log: { level: ClickHouseLogLevel.OFF } });

const day = (i: number) => {
  const to = Date.parse(`${END.replace(' ', 'T')}Z`) - (i % (DAYS - 1)) * 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  return { from: iso(to - 86_400_000), to: iso(to) };
};
/** Parameters of run i: another organization, day, transaction each time, as tenants ask. */
const paramsOf: Record<QueryName, (i: number) => Record<string, unknown>> = {
  decisionsByRuleHourly: (i) => ({ org_id: `org_${i % ORGS}`, ...day(i), limit: 101, offset: 0 }),
  topRules: (i) => ({ org_id: `org_${i % ORGS}`, ...day(i), limit: 101, offset: 0 }),
  transactionDecision: (i) => ({ org_id: `org_${(i * 7919) % ORGS}`, transaction_id: `tx${(i * 7919) % ROWS}` }),
  screeningHits: (i) => ({ org_id: `org_${i % ORGS}`, ...day(i), limit: 101, offset: 0 }),
  entityCounters: (i) => ({ table: 'entity_counters', org_id: `org_${i % ORGS}`, entity_id: `u${i}` }),
  counterConfigHistory: (i) => ({ org_id: `org_${i % ORGS}`, limit: 101, offset: 0 }),
  decisionsPerMinute: (i) => day(i),
};
await ch.command({ query: "CREATE TABLE IF NOT EXISTS entity_counters (org_id String, entity_id String, updated_at DateTime64(3, 'UTC'), logins Nullable(Float64)) ENGINE = ReplacingMergeTree(updated_at) ORDER BY (org_id, entity_id)" });
await ch.command({ query: `INSERT INTO entity_counters SELECT concat('org_', toString(number % ${ORGS})), concat('u', toString(number)), now64(3), number % 17 FROM numbers(100000)` });

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
async function measure(run: (q: string, params: Record<string, unknown>) => Promise<unknown>, name: QueryName) {
  await run(QUERIES[name].sql, paramsOf[name](RUNS)); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run(QUERIES[name].sql, paramsOf[name](i));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}
const viaApi = (q: string, p: Record<string, unknown>) => ch.query({ query: q, query_params: p, format: 'JSONEachRow' }).then((r) => r.json());
const viaInterface = (client: ClickHouseClient) => (q: string, p: Record<string, unknown>) => client.query({ query: q, query_params: p, format: 'JSONEachRow' }).then((r) => r.json());

const rows: string[] = [];
const load = os.loadavg()[0]!.toFixed(1);
for (const name of Object.keys(QUERIES) as QueryName[]) {
  const api = await measure(viaApi, name);
  const http = await measure(viaInterface(analyst), name);
  const ms = (n: number) => n.toFixed(1);
  rows.push(`| ${QUERIES[name].title} | ${ms(api.p50)} | ${ms(api.p99)} | ${ms(http.p50)} | ${ms(http.p99)} |`);
  console.log(rows.at(-1));
}
await analyst.close();
await server.close();
await ch.close();

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'analytics.md');
await writeFile(out, `## Analytics: read latency of the documented queries on chDB

Command: \`${ROWS === 10_000_000 ? '' : `WEIR_BENCH_ANALYTICS_ROWS=${ROWS} `}npx tsx bench/analytics.ts\`  
Date: ${new Date().toISOString()}  
Machine: nproc ${os.availableParallelism()}, Node ${process.version}, shared with other work (1-minute load average ${load} at the start of the measurements, ${os.loadavg()[0]!.toFixed(1)} at the end)

Data: ${ROWS.toLocaleString('en-US')} \`decisions\` rows (${parts[0]!.rows} in ${parts[0]!.parts} active parts, ${parts[0]!.size} on disk, not merged to one part) over ${DAYS} days and ${ORGS} organizations, five rule results each; ${Math.ceil(ROWS / 10).toLocaleString('en-US')} screenings; 100,000 counter rows. Seeded inside the engine in ${seedSeconds.toFixed(0)} s.
Each query ran ${RUNS} times after a warm-up, with another organization, day or transaction each run (a day is about ${Math.round(ROWS / ORGS / DAYS).toLocaleString('en-US')} decisions of one organization); milliseconds. "API" is the process's own client (what \`GET /v1/analytics\` runs); "HTTP interface" is @clickhouse/client through ANALYTICS_PORT, which opens a read-only chDB session per query. chDB's query threads run at nice 19.

| query | API p50 | API p99 | HTTP interface p50 | HTTP interface p99 |
|---|---:|---:|---:|---:|
${rows.join('\n')}

chDB runs its query and merge threads at nice 19 (infra/analytics/chdb.ts) so that analytics never
takes the CPU from live requests. On a machine whose load average is far above its core count, those
threads wait behind every other process, and the figures measure that wait more than the queries:
only the lookups that need one thread and no join (counters, configurations) stay near 10 ms at the
median.
`);
console.log(`wrote ${out}`);
