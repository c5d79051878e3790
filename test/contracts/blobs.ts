import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../infra/blobs/types.js';

/** What every BlobStore (local files today, S3 tomorrow) must do. */
export function blobStoreContract(name: string, make: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('stores a buffer and reads it back with size and content type', async () => {
      const store = await make();
      const put = await store.put('org_a/assets/a1.txt', Buffer.from('hello'), 'text/plain');
      expect(put).toEqual({ key: 'org_a/assets/a1.txt', sizeBytes: 5 });
      const got = await store.get('org_a/assets/a1.txt');
      expect(got?.sizeBytes).toBe(5);
      expect(got?.contentType).toBe('text/plain');
      expect(await text(got!.body)).toBe('hello');
    });

    it('stores a stream', async () => {
      const store = await make();
      await store.put('v/out.mp4', Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
      expect(await text((await store.get('v/out.mp4'))!.body)).toBe('abcd');
    });

    it('stores nothing of a stream that fails half-way, and keeps what the key held', async () => {
      const store = await make();
      await store.put('k/held', Buffer.from('before'));
      const failing = () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('partial');
            throw new Error('the client went away');
          })(),
        );
      await expect(store.put('k/held', failing())).rejects.toThrow('the client went away');
      await expect(store.put('k/new', failing())).rejects.toThrow('the client went away');
      expect(await text((await store.get('k/held'))!.body)).toBe('before');
      expect(await store.exists('k/new')).toBe(false);
    });

    it('overwrites, reports existence and deletes', async () => {
      const store = await make();
      await store.put('k', Buffer.from('one'));
      await store.put('k', Buffer.from('second'));
      expect(await text((await store.get('k'))!.body)).toBe('second');
      expect(await store.exists('k')).toBe(true);
      expect(await store.delete('k')).toBe(true);
      expect(await store.exists('k')).toBe(false);
      expect(await store.get('k')).toBeNull();
      expect(await store.delete('k')).toBe(false);
    });

    it.each(['../etc/passwd', 'a/../../b', '/abs', 'a//b', ''])('refuses the key %j', async (key) => {
      const store = await make();
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/invalid blob key/);
    });
  });
}
