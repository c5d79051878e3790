/**
 * The counter pipeline's modules as a checkout has them (a bench compares two worktrees in one
 * process): the Redis window store, the event applier, the flusher and what configures them.
 */
export async function counterPipelineOf(root: string) {
  const from = <T>(file: string): Promise<T> => import(`${root}/${file}`) as Promise<T>;
  const { createRedisWindowStore } = await from<typeof import('../../infra/windows/redis/index.js')>('infra/windows/redis/index.ts');
  const { createEventApplier } = await from<typeof import('../../pipelines/counters/apply-events.js')>('pipelines/counters/apply-events.ts');
  const { createFlusher } = await from<typeof import('../../pipelines/counters/flusher.js')>('pipelines/counters/flusher.ts');
  const { compileConfig } = await from<typeof import('../../domain/counters/compile.js')>('domain/counters/compile.ts');
  const { counterConfigSchema } = await from<typeof import('../../schemas/http/counters.js')>('schemas/http/counters.ts');
  const { systemClock } = await from<typeof import('../../infra/clock.js')>('infra/clock.ts');
  return { createRedisWindowStore, createEventApplier, createFlusher, compileConfig, counterConfigSchema, systemClock };
}
