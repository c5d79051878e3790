import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceFile } from '../../fs/atomic-file.js';
import { groupCommit } from '../../group-commit.js';

/** Next offset to consume, per partition. */
export type CommittedOffsets = Map<number, number>;

export interface OffsetStore {
  /** What the group last committed on the topic, read from disk (another process may have written it). */
  load(groupId: string, topic: string): Promise<CommittedOffsets>;
  /** Resolves once durable; commits that meet during one write share the next. */
  commit(groupId: string, topic: string, partition: number, nextOffset: number): Promise<void>;
}

/** Group ids are free text: keep them a single, harmless file name ('.' escaped so '..' cannot occur). */
const fileName = (s: string): string => encodeURIComponent(s).replaceAll('.', '%2E');

/** `<dir>/<group>/<topic>.json` holds `{ "<partition>": nextOffset }`, replaced atomically. */
export function createOffsetStore(dir: string): OffsetStore {
  const fileOf = (groupId: string, topic: string): string => path.join(dir, fileName(groupId), `${fileName(topic)}.json`);

  async function load(groupId: string, topic: string): Promise<CommittedOffsets> {
    try {
      const raw = JSON.parse(await readFile(fileOf(groupId, topic), 'utf8')) as Record<string, number>;
      return new Map(Object.entries(raw).map(([p, o]) => [Number(p), o]));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw err;
    }
  }

  const writers = new Map<string, Promise<{ offsets: CommittedOffsets; flush: () => Promise<void> }>>();
  function writerFor(groupId: string, topic: string) {
    const file = fileOf(groupId, topic);
    let w = writers.get(file);
    if (!w) {
      w = (async () => {
        await mkdir(path.dirname(file), { recursive: true });
        // Start from what is on disk so partitions this process does not touch keep their offsets.
        const offsets = await load(groupId, topic);
        const flush = groupCommit(() => replaceFile(file, JSON.stringify(Object.fromEntries(offsets))));
        return { offsets, flush };
      })();
      w.catch(() => writers.delete(file));
      writers.set(file, w);
    }
    return w;
  }

  return {
    load,
    async commit(groupId, topic, partition, nextOffset) {
      const w = await writerFor(groupId, topic);
      w.offsets.set(partition, nextOffset);
      await w.flush();
    },
  };
}
