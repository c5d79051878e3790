import { z } from 'zod';
import { apiKeysSchema } from './api-keys.js';
import { parseRedisUrl } from './windows/redis/url.js';

/** Every environment variable Weir reads, declared once and validated at start-up (CONTRACTS.md sections 1, 2). */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const csv = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
const positiveInt = z.coerce.number({ error: 'must be a positive integer' }).int().positive();

export { PLANS, type ApiKeyEntry, type Plan, type Rate } from './api-keys.js';

export interface AnalyticsUserEntry { user: string; password: string }

const analyticsUsers = z.string().transform((raw, ctx): AnalyticsUserEntry[] => {
  const entries: AnalyticsUserEntry[] = [];
  for (const [i, item] of raw.split(',').map((s) => s.trim()).filter(Boolean).entries()) {
    const at = item.indexOf(':');
    const user = item.slice(0, at);
    if (at < 1 || !/^[A-Za-z0-9_.-]+$/.test(user) || at === item.length - 1) {
      // Never echo the entry: it holds a secret.
      ctx.addIssue({ code: 'custom', message: `entry ${i + 1} must be user:password with a user of letters, digits, _ . -` });
      continue;
    }
    entries.push({ user, password: item.slice(at + 1) });
  }
  return entries;
});

export const envSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  API_KEYS: apiKeysSchema.default([]),
  KAFKA_BROKERS: csv.pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1)).optional(),
  KAFKA_CLIENT_ID: z.string().default('weir'),
  /** Prefix (`<namespace>.`) of this deployment's topics, consumer groups and schema subjects on a shared Kafka cluster. */
  KAFKA_NAMESPACE: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1 to 100 letters, digits, _ or -').optional(),
  KAFKA_PARTITIONS_CONCURRENTLY: positiveInt.default(6),
  KAFKA_COUNTER_MEMBERS: positiveInt.max(64, 'must be at most 64').default(3),
  SCHEMA_REGISTRY_URL: z.url().optional(),
  /** redis://host:port[/db], or redis+cluster://host:port,host:port (seeds of a Redis Cluster). */
  REDIS_URL: z
    .string()
    .superRefine((url, ctx) => {
      try {
        parseRedisUrl(url);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  /** REDIS_URL names a seed node of a Redis Cluster (the same as a redis+cluster:// URL). */
  REDIS_CLUSTER: bool.default(false),
  REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(1000),
  /** Namespace (`<prefix>:`) of this deployment's keys on a Redis that several deployments share, as KAFKA_NAMESPACE is on Kafka. */
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'must be 1 to 100 letters, digits, _, . or -').optional(),
  CLICKHOUSE_URL: z.url().optional(),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  /** chDB data directory; default `<DATA_DIR>/clickhouse`. chDB allows one per process. */
  CHDB_PATH: z.string().min(1).optional(),
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').default('weir'),
  /** The ClickHouse HTTP interface over chDB (infra/analytics/http-interface); unset: off. */
  ANALYTICS_PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).optional(),
  ANALYTICS_HOST: z.string().min(1).default('127.0.0.1'),
  ANALYTICS_USERS: analyticsUsers.default([]),
  ANALYTICS_MAX_EXECUTION_SECONDS: positiveInt.default(30),
  ANALYTICS_MAX_RESULT_ROWS: positiveInt.default(1_000_000),
  ANALYTICS_MAX_RESULT_BYTES: positiveInt.default(100 * 1024 * 1024),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb or 512kb').default('1mb'),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(60_000),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt.default(1200),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(15000),
  TRANSACTION_TRACE: bool.default(false),
  OTP_DEV_ECHO: bool.default(false),
  /** Blob store root (assets, rendered videos); default `<DATA_DIR>/blobs`. Processes that share it share blobs. */
  BLOBS_DIR: z.string().min(1).optional(),
  /** Video renders one worker process runs at once (ffmpeg processes). */
  RENDER_CONCURRENCY: positiveInt.default(1),
  /** x264 preset of renders: faster presets trade file size for speed (ultrafast renders 1080p faster than real time on 2 cores; bench/video-render.ts). */
  RENDER_PRESET: z.enum(['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium']).default('ultrafast'),
  RENDER_CRF: z.coerce.number().int().min(0).max(51).default(23),
  /** ffmpeg threads per render; 0 lets ffmpeg use every core. Unset: half the cores on a process that also serves HTTP, every core on a render-only one. */
  RENDER_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  /** Renders one organization may have queued or rendering at once (429 beyond). */
  RENDER_MAX_CONCURRENT_JOBS: positiveInt.default(4),
  /** Seconds of output of one render (400 beyond). */
  RENDER_MAX_JOB_SECONDS: positiveInt.default(600),
  /** Seconds of output one organization may render in 24 hours (429 beyond). */
  RENDER_MAX_SECONDS_PER_DAY: positiveInt.default(7200),
  /** Width × height × fps × seconds of one render (400 beyond); the default is 1080p at 30 fps for 10 minutes. */
  RENDER_MAX_JOB_PIXEL_FRAMES: positiveInt.default(1920 * 1080 * 30 * 600),
  /** A render whose ffmpeg encodes nothing for this long is stopped and fails (an input ffmpeg cannot read can hang it). */
  RENDER_STALL_SECONDS: positiveInt.default(60),
  /** Topic of render jobs; its status events go to `<RENDER_TOPIC>.status`. Another name isolates deployments sharing a Kafka cluster. */
  RENDER_TOPIC: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name').default('render.jobs'),
  /** Largest asset upload (POST /api/assets), bytes; larger answers 413. */
  ASSET_MAX_BYTES: positiveInt.default(50 * 1024 * 1024),
  /** Bytes of one source (an upload, an asset's copy, a fetched address): each streams to the blob store and stops past it. */
  SOURCE_MAX_BYTES: positiveInt.default(512 * 1024 * 1024),
  /** Speech recognition of sources without subtitles: `pocketsphinx` (default where pocketsphinx_continuous is installed) or `off`. */
  VIDEO_ASR: z.enum(['off', 'pocketsphinx']).optional(),
  /** Preview stills one organization may have waiting for or under ffmpeg at once (429 beyond); cached stills and stills already being drawn do not count. */
  PREVIEW_MAX_QUEUED_PER_ORG: positiveInt.default(4),
  /** Preprocessing jobs one preprocess worker runs at once. */
  PREPROCESS_CONCURRENCY: positiveInt.default(1),
  /** Preprocessing jobs one organization may have queued or running at once (429 beyond). */
  PREPROCESS_MAX_CONCURRENT_JOBS: positiveInt.default(2),
  /** Topic of preprocessing jobs; its status events go to `<PREPROCESS_TOPIC>.status`. Another name isolates deployments sharing a Kafka cluster. */
  PREPROCESS_TOPIC: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name').default('sources.preprocess'),
  /** Deadline of fetching a source from an address (POST /api/sources {url}). */
  SOURCE_FETCH_TIMEOUT_MS: positiveInt.default(120_000),
  RISK_LISTS_DIR: z.string().default('./data/risk-lists'),
  RISK_LISTS_RELOAD_CRON: z.string().default('17 * * * *'),
  /** `<kind>=<url>` pairs the reload downloads first (infra/risk/update-lists.ts); none by default. */
  RISK_LISTS_SOURCES: csv.default([]),
  RISK_HIGH_RISK_COUNTRIES: csv.pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'each entry must be an ISO 3166-1 alpha-2 code in upper case'))).default(['KP', 'IR', 'MM']),
  SANCTIONS_DATA_DIR: z.string().default('./data/lists'),
  SCREENING_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.8),
  SCREENING_BLOCK_THRESHOLD: z.coerce.number().min(0).max(1).default(0.95),
  BEARER_SIGNING_SECRET: z.string().min(16).optional(),
  /** Video demo studio: origins (scheme://host[:port]) whose same-origin page may get a demo token without a key. */
  VIDEO_DEMO_ORIGINS: csv.pipe(z.array(z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin))).default([]),
  /** The organization the demo studio's tokens act for. */
  VIDEO_DEMO_ORG: z.string().min(1).default('demo'),
  /** Per-organization limits (domain/quotas.ts). */
  QUOTA_RULES_PER_ORG: positiveInt.default(1_000),
  QUOTA_TABLES_PER_ORG: positiveInt.default(100),
  QUOTA_COLUMNS_PER_ORG: positiveInt.default(2_000),
  QUOTA_LOOKUP_ROWS_PER_ORG: positiveInt.default(1_000_000),
  QUOTA_EVENTS_PER_SECOND_PER_ORG: positiveInt.default(100_000),
  QUOTA_ENTITIES_PER_ORG: positiveInt.default(10_000_000),
  /** Rule engine: HMAC key of the decisions on `transactions`; unset, one is kept under DATA_DIR. */
  DECISION_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(1000),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10000),
  WEBHOOK_CIRCUIT_OPEN_MS: positiveInt.default(300000),
  WEBHOOK_DISABLE_AFTER_MS: positiveInt.default(86_400_000),
  /** Fan-out bounds (domain/webhooks/bounds.ts): bytes of one event's payload as JSON, registrations per organization, bytes of a registration's auto_payload. */
  WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES: positiveInt.default(262_144),
  WEBHOOK_REGISTRATIONS_PER_ORG: positiveInt.default(100),
  WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES: positiveInt.default(16_384),
  /** Seals webhook signing secrets at rest; default: a key file under DATA_DIR (one process or one data directory). */
  WEBHOOK_SECRETS_KEY: z.string().min(16).optional(),
}).refine((c) => c.SCREENING_REVIEW_THRESHOLD <= c.SCREENING_BLOCK_THRESHOLD, {
  path: ['SCREENING_REVIEW_THRESHOLD'],
  message: 'must not exceed SCREENING_BLOCK_THRESHOLD',
}).refine((c) => c.ANALYTICS_PORT === undefined || c.ANALYTICS_USERS.length > 0, {
  path: ['ANALYTICS_USERS'],
  message: 'must name at least one user:password when ANALYTICS_PORT is set',
}).refine((c) => c.ANALYTICS_PORT === undefined || c.CLICKHOUSE_URL === undefined, {
  path: ['ANALYTICS_PORT'],
  message: 'serves the embedded chDB only; with CLICKHOUSE_URL set, point SQL tools at that server',
});

export type Config = z.infer<typeof envSchema>;

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws a ConfigError naming each variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const [name, ...rest] = i.path;
    const where = rest.length > 0 ? ` entry ${rest.map((p) => (typeof p === 'number' ? p + 1 : String(p))).join('.')},` : '';
    return `  ${String(name ?? '(environment)')}:${where} ${i.message}`;
  });
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}
