import { z } from 'zod';

/** Every environment variable Weir reads, declared once and validated at start-up (CONTRACTS.md sections 1, 2). */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const csv = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
const positiveInt = z.coerce.number({ error: 'must be a positive integer' }).int().positive();

export const PLANS = ['starter', 'professional', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export interface ApiKeyEntry { orgId: string; key: string; plan: Plan }

const apiKeys = z.string().transform((raw, ctx): ApiKeyEntry[] => {
  const entries: ApiKeyEntry[] = [];
  for (const [i, item] of raw.split(',').map((s) => s.trim()).filter(Boolean).entries()) {
    const [orgId, key, plan = 'enterprise', ...rest] = item.split(':');
    if (!orgId || !key || rest.length > 0 || !(PLANS as readonly string[]).includes(plan)) {
      // Never echo the entry: it holds a secret.
      ctx.addIssue({ code: 'custom', message: `entry ${i + 1} must be orgId:apiKey[:plan] with plan one of ${PLANS.join(', ')}` });
      continue;
    }
    entries.push({ orgId, key, plan: plan as Plan });
  }
  return entries;
});

export const envSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  API_KEYS: apiKeys.default([]),
  KAFKA_BROKERS: csv.pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1)).optional(),
  KAFKA_CLIENT_ID: z.string().default('weir'),
  KAFKA_PARTITIONS_CONCURRENTLY: positiveInt.default(6),
  SCHEMA_REGISTRY_URL: z.url().optional(),
  REDIS_URL: z.url().optional(),
  CLICKHOUSE_URL: z.url().optional(),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  /** chDB data directory; default `<DATA_DIR>/clickhouse`. chDB allows one per process. */
  CHDB_PATH: z.string().min(1).optional(),
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').default('weir'),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb or 512kb').default('1mb'),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(6000),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(15000),
  TRANSACTION_TRACE: bool.default(false),
  OTP_DEV_ECHO: bool.default(false),
  SANCTIONS_DATA_DIR: z.string().default('./data/lists'),
  SCREENING_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.8),
  SCREENING_BLOCK_THRESHOLD: z.coerce.number().min(0).max(1).default(0.95),
  BEARER_SIGNING_SECRET: z.string().min(16).optional(),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(1000),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10000),
  WEBHOOK_CIRCUIT_OPEN_MS: positiveInt.default(300000),
  WEBHOOK_DISABLE_AFTER_MS: positiveInt.default(86_400_000),
  /** Seals webhook signing secrets at rest; default: a key file under DATA_DIR (one process or one data directory). */
  WEBHOOK_SECRETS_KEY: z.string().min(16).optional(),
}).refine((c) => c.SCREENING_REVIEW_THRESHOLD <= c.SCREENING_BLOCK_THRESHOLD, {
  path: ['SCREENING_REVIEW_THRESHOLD'],
  message: 'must not exceed SCREENING_BLOCK_THRESHOLD',
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
