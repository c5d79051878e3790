/** Pair 2's second pair at 200 transactions/s: Weir against the same 50 rules in json-rules-engine in the bare server (bench/peers/edge/transactions-pair.ts). */
import { runTransactionsPair } from './edge/transactions-pair.js';

await runTransactionsPair({ id: 'transactions-json-rules', rate: 200, peer: 'json-rules-engine' });
