import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { riskService } from '../services/risk.js';
import { countersService } from '../services/counters.js';
import type { ServiceModule } from '../services/types.js';
import { down, up, type PartHealth } from '../infra/health.js';
import { startTestProcess } from './support/process.js';

/** A worker whose state the test sets: a consumer that crashes when told. */
let probeState: PartHealth = up;
const probeService: ServiceModule = {
  name: 'probe',
  topics: [],
  migrations: [],
  create: async () => ({ workers: [{ role: 'counters', name: 'probe.consumer', start: async () => ({ stop: async () => undefined, health: () => probeState }) }] }),
};

interface Health {
  status: string;
  timestamp: string;
  parts: Record<string, { status: string; detail?: string }>;
}

describe('/health', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const health = async (): Promise<{ code: number; body: Health }> => {
    const res = await fetch(`${p.url}/health`);
    return { code: res.status, body: (await res.json()) as Health };
  };

  beforeAll(async () => {
    p = await startTestProcess({ services: [countersService, probeService] });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('reports each part up: bus, window store, analytics, every consumer', async () => {
    const { code, body } = await health();
    expect(code).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      timestamp: expect.any(String),
      parts: { bus: { status: 'up' }, window_store: { status: 'up' }, analytics: { status: 'up' }, 'consumer:counters': { status: 'up' }, 'consumer:probe.consumer': { status: 'up' } },
    });
    expect(Date.parse(body.timestamp)).not.toBeNaN();
  });

  it('answers 503 naming a consumer that crashed', async () => {
    probeState = down('crashed: KafkaJSNonRetriableError');
    try {
      const { code, body } = await health();
      expect(code).toBe(503);
      expect(body.status).toBe('down');
      expect(Date.parse(body.timestamp)).not.toBeNaN();
      expect(body.parts['consumer:probe.consumer']).toEqual({ status: 'down', detail: 'crashed: KafkaJSNonRetriableError' });
      expect(body.parts['consumer:counters']).toEqual({ status: 'up' });
    } finally {
      probeState = up;
    }
    expect((await health()).code).toBe(200);
  });

  it('answers 503 once the embedded window store has stopped', async () => {
    await p.platform.windows.close(); // as a journal write failure stops it: every later call fails
    const { code, body } = await health();
    expect(code).toBe(503);
    expect(body).toMatchObject({ status: 'down', parts: { window_store: { status: 'down', detail: expect.any(String) }, bus: { status: 'up' } } });
  });
});

describe('/health with the risk service', () => {
  it('warns, in the risk_lists part (still up), of every risk IP list kind that is empty', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-risk-lists-'));
    await mkdir(path.join(dir, 'tor'));
    await writeFile(path.join(dir, 'tor', 'exits.txt'), '198.51.100.7\n');
    const p = await startTestProcess({ services: [riskService()], env: { RISK_LISTS_DIR: dir } });
    try {
      const body = (await (await fetch(`${p.url}/health`)).json()) as Health;
      expect(body.status).toBe('ok');
      expect(body.parts.risk_lists).toEqual({ status: 'up', detail: `risk IP lists empty: vpn, proxy, datacenter, fraud (no files under ${dir}/<kind>); checks score these addresses as clean` });
    } finally {
      await p.stop();
    }
  });
});
