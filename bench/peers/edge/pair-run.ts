import type { PairSpec } from '../harness.js';

/**
 * How an edge pair is run: its rounds (PEERS_ROUNDS, default 3) and the commands that run it, the
 * script alone taking the node options of `npm start`; `knobs` names its environment settings.
 */
export const pairRun = (id: string, knobs: string): Pick<PairSpec, 'rounds' | 'commands'> => ({
  rounds: Number(process.env.PEERS_ROUNDS ?? 3),
  commands: [`npm run bench:peers -- ${id}`, `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/${id}.ts   # ${knobs}`],
});
