import { createHash } from 'node:crypto';
import type { WindowStore } from '../../infra/windows/types.js';
import type { CircuitState } from '../../domain/webhooks/circuit.js';

/**
 * Circuits as every process can read and reset them, in the window store: the delivery workers
 * write a circuit's state each time it changes (only failing destinations change it), the API reads
 * it, and a reset asked over the API is a marker the workers honour the next time the circuit would
 * defer a delivery.
 */

const SCOPE = 'webhooks';
const STATES = 'circuits';
const RESETS = 'circuit-resets';

/** One circuit per organization and URL. */
export const circuitKey = (orgId: string, url: string): string => createHash('sha256').update(`${orgId}\n${url}`).digest('base64url').slice(0, 32);

export interface RecordedCircuit {
  state: CircuitState;
  /** When a worker recorded it (ms). */
  at: number;
}

export function createCircuitBoard(windows: WindowStore) {
  const one = async (ns: string, key: string) => {
    const [value] = await windows.getValues(SCOPE, ns, [key]);
    return value ? JSON.parse(value) : null;
  };
  return {
    async write(key: string, state: CircuitState, at: number): Promise<void> {
      if (state.consecutiveFailures === 0) await windows.deleteValues(SCOPE, STATES, [key]);
      else await windows.putValues(SCOPE, STATES, [{ id: key, value: JSON.stringify({ state, at } satisfies RecordedCircuit) }]);
    },
    read: (key: string): Promise<RecordedCircuit | null> => one(STATES, key),
    async reset(key: string, at: number): Promise<void> {
      await windows.putValues(SCOPE, RESETS, [{ id: key, value: JSON.stringify({ at }) }]);
      await windows.deleteValues(SCOPE, STATES, [key]);
    },
    /** When a reset was last asked, or null. */
    resetAt: async (key: string): Promise<number | null> => ((await one(RESETS, key)) as { at: number } | null)?.at ?? null,
  };
}

export type CircuitBoard = ReturnType<typeof createCircuitBoard>;
