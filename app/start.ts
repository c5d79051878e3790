import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../infra/config.js';
import { createLogger } from '../infra/logger.js';
import { buildPlatform, chdbPathOf, closePlatform } from '../infra/build-platform.js';
import { removeDiscovery, writeDiscovery } from '../infra/analytics/http-interface/discovery.js';
import { serveAnalyticsInterface } from '../infra/analytics/http-interface/index.js';
import { runMigrations } from '../infra/analytics/index.js';
import type { Platform } from '../infra/platform.js';
import type { Clock } from '../infra/clock.js';
import { checkParts, down, up, type Probe } from '../infra/health.js';
import { dlqTopic } from '../infra/bus/types.js';
import { buildEdge } from '../api/app.js';
import { KeyRing } from '../api/http/auth.js';
import { services as allServices } from '../services/index.js';
import { servesHttp, type Role, type ServiceInstance, type ServiceModule } from '../services/types.js';
import type { Stoppable } from '../infra/lifecycle.js';

/** Longest a /health check waits for one part: a part slower than this is reported down. */
const HEALTH_TIMEOUT_MS = 1000;

/** The shared adapters' checks; each started consumer adds its own. */
function platformProbes(platform: Platform): Record<string, Probe> {
  return {
    bus: () => platform.bus.health(),
    window_store: () => platform.windows.health(),
    analytics: async () => ((await platform.analytics.ping()).success ? up : down('ClickHouse does not answer')),
  };
}

export interface StartOptions {
  role: Role;
  env: NodeJS.ProcessEnv;
  /** Install SIGTERM/SIGINT handlers and exit the process on a configuration error. */
  handleSignals?: boolean;
  services?: ServiceModule[];
  clock?: Clock;
}

export interface RunningProcess {
  platform: Platform;
  keys: KeyRing;
  /** Base URL of the HTTP server, when this role serves HTTP. */
  url?: string;
  /** Base URL of the ClickHouse HTTP interface, when ANALYTICS_PORT is set. */
  analyticsUrl?: string;
  instances: Map<string, ServiceInstance>;
  stop(): Promise<void>;
}

/**
 * Starts one Weir process: validates configuration, builds adapters, runs migrations, creates the
 * services, serves HTTP (roles api/all) and starts the workers of the role.
 */
export async function startProcess(opts: StartOptions): Promise<RunningProcess> {
  let config;
  try {
    config = loadConfig(opts.env);
  } catch (err) {
    if (err instanceof ConfigError && opts.handleSignals) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL);
  const services = opts.services ?? allServices;
  const platform = await buildPlatform(config, log, opts.clock);
  const topics = services.flatMap((s) => s.topics);
  await platform.bus.ensureTopics([...topics, ...topics.map((t) => ({ topic: dlqTopic(t.topic), partitions: 1 }))]);
  await runMigrations(platform.analytics, config.CLICKHOUSE_DATABASE, services.flatMap((s) => s.migrations));

  const keys = new KeyRing(config.API_KEYS);
  const instances = new Map<string, ServiceInstance>();
  for (const s of services) instances.set(s.name, await s.create({ platform, keys, role: opts.role }));

  const workers: Stoppable[] = [];
  const probes: Record<string, Probe> = platformProbes(platform);
  for (const inst of instances.values()) {
    Object.assign(probes, inst.health);
    for (const w of inst.workers ?? []) {
      if (opts.role === 'all' || opts.role === w.role) {
        const running = await w.start();
        workers.push(running);
        if (running.health) probes[`consumer:${w.name}`] = () => running.health!();
        log.info({ worker: w.name, role: w.role }, 'worker started');
      }
    }
  }

  // ClickHouse's HTTP interface for analysts, on the chDB engine this process already holds.
  const analyticsHttp = config.ANALYTICS_PORT === undefined ? undefined : await serveAnalyticsInterface({
    chdbPath: chdbPathOf(config),
    database: config.CLICKHOUSE_DATABASE,
    host: config.ANALYTICS_HOST,
    port: config.ANALYTICS_PORT,
    users: config.ANALYTICS_USERS,
    limits: { maxExecutionSeconds: config.ANALYTICS_MAX_EXECUTION_SECONDS, maxResultRows: config.ANALYTICS_MAX_RESULT_ROWS, maxResultBytes: config.ANALYTICS_MAX_RESULT_BYTES },
    log,
  });
  const firstAnalyst = config.ANALYTICS_USERS[0];
  if (analyticsHttp && firstAnalyst) await writeDiscovery(config.DATA_DIR, { url: analyticsHttp.url, user: firstAnalyst.user, password: firstAnalyst.password });

  let ready = false;
  let server: Server | undefined;
  let url: string | undefined;
  if (servesHttp(opts.role)) {
    const edge = buildEdge({
      log,
      metrics: platform.metrics,
      routers: [...instances.values()].flatMap((i) => (i.router ? [i.router] : [])),
      lanes: [...instances.values()].flatMap((i) => i.lanes ?? []),
      keys,
      rateLimit: { perKeyPerMinute: config.RATE_LIMIT_PER_MINUTE, perAddressPerMinute: config.RATE_LIMIT_ANONYMOUS_PER_MINUTE },
      windows: platform.windows,
      clock: platform.clock,
      rateLimitExempt: [...instances.values()].flatMap((i) => i.ownRateLimits ?? []),
      isReady: () => ready,
      health: () => checkParts(probes, HEALTH_TIMEOUT_MS),
    });
    server = await new Promise<Server>((resolve) => {
      const s = createServer(edge).listen(config.PORT, () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  ready = true;
  log.info({ role: opts.role, url }, 'weir started');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      ready = false;
      const closing = server ? new Promise<void>((r) => server!.close(() => r())) : Promise.resolve();
      server?.closeIdleConnections();
      await closing; // stop intake: requests in flight finish
      await analyticsHttp?.close();
      if (analyticsHttp) await removeDiscovery(config.DATA_DIR);
      for (const w of workers.reverse()) await w.stop(); // drain consumers, flush state
      for (const inst of instances.values()) await inst.close?.();
      await closePlatform(platform); // close clients
      log.info('weir stopped');
    })());

  if (opts.handleSignals) {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      process.once(sig, () => {
        log.info({ signal: sig }, 'shutting down');
        const timer = setTimeout(() => {
          log.error('shutdown timed out');
          process.exit(1);
        }, config.SHUTDOWN_TIMEOUT_MS);
        timer.unref();
        stop().then(() => process.exit(0), (err) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        });
      });
    }
  }
  return { platform, keys, url, analyticsUrl: analyticsHttp?.url, instances, stop };
}
