import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { services } from '../services/index.js';

const root = path.resolve(import.meta.dirname, '..');
const read = (p: string) => readFile(path.join(root, p), 'utf8');

interface Target { datasource: { uid: string }; expr?: string; rawSql?: string }
interface Panel { title: string; datasource: { uid: string }; targets: Target[] }

/**
 * The Grafana dashboard names only what exists: every Prometheus query a metric a Weir process
 * exports, every ClickHouse query runs (Grafana's time macro replaced) on the tables the services
 * create; and docker-compose.yml provisions it.
 */
describe('Grafana dashboard', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let panels: Panel[];
  let metricNames: Set<string>;

  beforeAll(async () => {
    panels = (JSON.parse(await read('infra/grafana/dashboards/weir.json')) as { panels: Panel[] }).panels;
    p = await startTestProcess({ services, env: { SANCTIONS_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weir-no-lists-')) } });
    const exposition = await (await fetch(`${p.url}/metrics`)).text();
    metricNames = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('has panels, each with queries on a provisioned data source', async () => {
    const provisioned = [...(await read('infra/grafana/provisioning/datasources/weir.yml')).matchAll(/uid: (\S+)/g)].map((m) => m[1]);
    expect(panels.length).toBeGreaterThanOrEqual(8);
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const t of panel.targets) expect(provisioned, panel.title).toContain(t.datasource.uid);
    }
  });

  it('names in every Prometheus query only metrics a Weir process exports', () => {
    const queries = panels.flatMap((panel) => panel.targets.filter((t) => t.expr !== undefined).map((t) => ({ panel: panel.title, expr: t.expr! })));
    expect(queries.length).toBeGreaterThan(0);
    for (const { panel, expr } of queries) {
      const names = [...expr.matchAll(/\bweir_[a-z0-9_]+/g)].map((m) => m[0]);
      expect(names.length, panel).toBeGreaterThan(0);
      for (const name of names) expect(metricNames, `${panel}: ${name}`).toContain(name.replace(/_(bucket|count|sum)$/, ''));
    }
  });

  it('runs every ClickHouse query on the tables the services create', async () => {
    const queries = panels.flatMap((panel) => panel.targets.filter((t) => t.rawSql !== undefined).map((t) => ({ panel: panel.title, sql: t.rawSql! })));
    expect(queries.length).toBeGreaterThan(0);
    for (const { panel, sql } of queries) {
      const runnable = sql.replace(/\$__timeFilter\((\w+)\)/g, '$1 >= now() - INTERVAL 1 DAY');
      expect(runnable, panel).not.toContain('$');
      await expect(p.platform.analytics.query({ query: runnable, format: 'JSONEachRow' }).then((rs) => rs.json()), panel).resolves.toEqual([]);
    }
  });

  it('is provisioned by docker-compose.yml with Prometheus and Grafana', async () => {
    const compose = await read('docker-compose.yml');
    expect(compose).toMatch(/^ {2}prometheus:/m);
    expect(compose).toMatch(/^ {2}grafana:/m);
    expect(compose).toContain('./infra/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml');
    expect(compose).toContain('./infra/grafana/provisioning:/etc/grafana/provisioning');
    expect(compose).toContain('./infra/grafana/dashboards:/var/lib/grafana/dashboards');
    expect(await read('infra/grafana/provisioning/dashboards/weir.yml')).toContain('path: /var/lib/grafana/dashboards');
  });
});
