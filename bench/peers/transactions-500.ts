/** Pair 2 at 500 transactions/s: Weir against the floor (bench/peers/edge/transactions-pair.ts). */
import { runTransactionsPair } from './edge/transactions-pair.js';

await runTransactionsPair({ id: 'transactions-500', rate: 500, peer: 'floor' });
