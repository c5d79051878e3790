/** Pair 2 at 200 transactions/s: Weir against the floor (bench/peers/edge/transactions-pair.ts). */
import { runTransactionsPair } from './edge/transactions-pair.js';

await runTransactionsPair({ id: 'transactions-200', rate: 200, peer: 'floor' });
