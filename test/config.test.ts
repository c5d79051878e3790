import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../infra/config.js';

describe('configuration from the environment', () => {
  it('fills documented defaults when nothing is set', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.KAFKA_BROKERS).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.CLICKHOUSE_URL).toBeUndefined();
    expect(c.API_KEYS).toEqual([]);
    expect(c.KAFKA_COUNTER_MEMBERS).toBe(3);
  });

  it('parses API_KEYS entries with an optional plan', () => {
    const c = loadConfig({ API_KEYS: 'org_a:k1, org_b:k2:starter' });
    expect(c.API_KEYS).toEqual([
      { orgId: 'org_a', key: 'k1', plan: 'enterprise' },
      { orgId: 'org_b', key: 'k2', plan: 'starter' },
    ]);
  });

  it('parses a key\'s own rate, per second or per minute, beside or without a plan', () => {
    const c = loadConfig({ API_KEYS: 'org_a:k1:rate=500/s,org_b:k2:starter:rate=30000/min,org_c:k3:rate=10/min:professional' });
    expect(c.API_KEYS).toEqual([
      { orgId: 'org_a', key: 'k1', plan: 'enterprise', rate: { limit: 500, windowMs: 1000 } },
      { orgId: 'org_b', key: 'k2', plan: 'starter', rate: { limit: 30000, windowMs: 60_000 } },
      { orgId: 'org_c', key: 'k3', plan: 'professional', rate: { limit: 10, windowMs: 60_000 } },
    ]);
  });

  it.each(['org_a:k1:rate=0/s', 'org_a:k1:rate=5/h', 'org_a:k1:rate=5', 'org_a:k1:starter:starter', 'org_a:k1:rate=1/s:rate=2/s', 'org_a:k1:starter:rate=1/s:x'])(
    'refuses the API_KEYS entry %s',
    (entry) => {
      expect(() => loadConfig({ API_KEYS: entry })).toThrow(/API_KEYS: entry 1 must be orgId:apiKey\[:plan\]\[:rate=N\/s\|N\/min\]/);
    },
  );

  it('refuses a key listed for two organizations (or twice), naming the entries and never the key', () => {
    let message = '';
    try {
      loadConfig({ API_KEYS: 'org_a:k1,org_b:shared-secret-key,org_c:k3,org_d:shared-secret-key:starter' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/API_KEYS: entries 2 and 4 list the same key for two organizations \(org_b and org_d\)/);
    expect(message).not.toContain('shared-secret-key');
    expect(() => loadConfig({ API_KEYS: 'org_a:k1,org_a:k1:starter' })).toThrow(/entries 1 and 2 list the same key twice/);
  });

  it('splits KAFKA_BROKERS into host:port entries', () => {
    expect(loadConfig({ KAFKA_BROKERS: 'a:9092,b:9093' }).KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['PORT', '70000', /PORT/],
    ['KAFKA_BROKERS', 'localhost', /KAFKA_BROKERS.*host:port/],
    ['KAFKA_NAMESPACE', 'staging.eu', /KAFKA_NAMESPACE.*letters, digits, _ or -/],
    ['KAFKA_COUNTER_MEMBERS', '0', /KAFKA_COUNTER_MEMBERS.*positive integer/],
    ['KAFKA_COUNTER_MEMBERS', '65', /KAFKA_COUNTER_MEMBERS.*at most 64/],
    ['REDIS_URL', 'not a url', /REDIS_URL/],
    ['REDIS_URL', 'redis://a:6379,b:6379', /REDIS_URL.*several nodes need redis\+cluster/],
    ['REDIS_URL', 'redis+cluster://a:7000,b:port', /REDIS_URL.*node "b:port" must be host:port/],
    ['REDIS_CLUSTER', 'yes', /REDIS_CLUSTER/],
    ['CLICKHOUSE_URL', '::', /CLICKHOUSE_URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['TRANSACTION_TRACE', 'yes', /TRANSACTION_TRACE/],
    ['CLICKHOUSE_DATABASE', 'weir; DROP', /CLICKHOUSE_DATABASE/],
    ['BODY_LIMIT', 'huge', /BODY_LIMIT/],
  ])('rejects %s=%s with a message naming the variable', (name, value, pattern) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(pattern);
  });

  it('names a bad API_KEYS entry without echoing its secret', () => {
    let message = '';
    try {
      loadConfig({ API_KEYS: 'org_a:supersecret:platinum' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/API_KEYS: entry 1 must be orgId:apiKey\[:plan\]/);
    expect(message).not.toContain('supersecret');
  });

  it('parses ANALYTICS_USERS (a password may hold colons) and keeps the interface off by default', () => {
    expect(loadConfig({}).ANALYTICS_PORT).toBeUndefined();
    const c = loadConfig({ ANALYTICS_PORT: '8123', ANALYTICS_USERS: 'ana:pw, grafana:a:b' });
    expect(c.ANALYTICS_USERS).toEqual([{ user: 'ana', password: 'pw' }, { user: 'grafana', password: 'a:b' }]);
    expect(c.ANALYTICS_HOST).toBe('127.0.0.1');
  });

  it.each([
    [{ ANALYTICS_PORT: '8123' }, /ANALYTICS_USERS: must name at least one/],
    [{ ANALYTICS_PORT: '8123', ANALYTICS_USERS: 'ana:pw', CLICKHOUSE_URL: 'http://ch:8123' }, /ANALYTICS_PORT: serves the embedded chDB only/],
    [{ ANALYTICS_USERS: 'ana' }, /ANALYTICS_USERS: entry 1 must be user:password/],
  ])('refuses an analytics interface that cannot work: %o', (env, pattern) => {
    expect(() => loadConfig(env)).toThrow(pattern);
  });

  it('reports every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/PORT[\s\S]*LOG_LEVEL/);
  });
});
