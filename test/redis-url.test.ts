import { describe, expect, it } from 'vitest';
import { parseRedisUrl } from '../infra/windows/redis/url.js';
import { groupBySlot, slotOf } from '../infra/windows/redis/client.js';

describe('REDIS_URL', () => {
  it('reads one server, with credentials, database and TLS', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ cluster: false, nodes: [{ host: '127.0.0.1', port: 6379 }], tls: false, db: 0 });
    expect(parseRedisUrl('rediss://u:p%40ss@cache.internal/2')).toEqual({
      cluster: false, nodes: [{ host: 'cache.internal', port: 6379 }], tls: true, db: 2, username: 'u', password: 'p@ss',
    });
  });

  it('reads the seed nodes of a Redis Cluster from redis+cluster://, or one seed with REDIS_CLUSTER', () => {
    expect(parseRedisUrl('redis+cluster://127.0.0.1:17000,127.0.0.1:17001')).toMatchObject({
      cluster: true, nodes: [{ host: '127.0.0.1', port: 17000 }, { host: '127.0.0.1', port: 17001 }],
    });
    expect(parseRedisUrl('redis://127.0.0.1:17000', true)).toMatchObject({ cluster: true, nodes: [{ host: '127.0.0.1', port: 17000 }] });
  });

  it.each([
    ['http://127.0.0.1:6379', /must be redis:\/\/host:port/],
    ['redis://a:1,b:2', /several nodes need redis\+cluster/],
    ['redis+cluster://a:1,b:x', /node "b:x" must be host:port/],
    ['redis+cluster://a:1/3', /database 0 only/],
    ['redis://user:secret@a:99999', /node "a:99999"/],
  ])('refuses %s, saying what is wrong without the password', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
    expect(() => parseRedisUrl(url)).not.toThrow(/secret/);
  });
});

describe('grouping keys by hash slot', () => {
  it('puts the keys of one hash tag together and keeps their order; one group on one server', () => {
    const keys = ['w:{acme:u1}', 'w:c:acme:n:1', 'w:o:{acme:u1}', 'w:c:acme:n:2'];
    expect(slotOf('w:{acme:u1}')).toBe(slotOf('w:o:{acme:u1}'));
    const groups = groupBySlot(true, keys, (k) => k);
    expect(groups).toContainEqual(['w:{acme:u1}', 'w:o:{acme:u1}']);
    expect(groups.flat().sort()).toEqual([...keys].sort());
    expect(groupBySlot(false, keys, (k) => k)).toEqual([keys]);
  });
});
