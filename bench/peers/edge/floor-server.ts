/**
 * The transactions pair's floor: a bare node:http server doing what Weir's POST /transaction must
 * do at the least, the same durable append of the same request in the same process model (one
 * Node process with the node options of `npm start`): read the body, parse it, encode it with
 * Weir's codec for the `transactions` topic and append it to Weir's embedded log (six partitions,
 * keyed by organization and entity, O_DSYNC), then answer 200. No validation, no authentication,
 * no rate limit, no rules. With FLOOR_RULES=json-rules-engine it first decides the transaction
 * with the benchmark's 50 rules in json-rules-engine (bench/peers/json-rules/engine.ts) and
 * appends the results in a header, as Weir does.
 *
 * Started by the pair with DATA_DIR set; prints `URL <base>` once it serves.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createEmbeddedBus } from '../../../infra/bus/embedded/index.js';
import { createCodec } from '../../../infra/codec/index.js';
import { createLogger } from '../../../infra/logger.js';
import { RESULTS_HEADER } from '../../../pipelines/rules/decision-headers.js';
import { TRANSACTIONS_TOPIC } from '../../../pipelines/rules/transactions-topic.js';
import { createJsonRulesDecider } from '../json-rules/engine.js';
import type { Transaction } from '../../rules-workload.js';

const ROUTE = /^\/transaction\/([^/?]+)/;

const bus = await createEmbeddedBus({ dir: path.join(process.env.DATA_DIR!, 'log'), log: createLogger('warn') });
await bus.ensureTopics([{ topic: TRANSACTIONS_TOPIC, partitions: 6 }]);
const codec = createCodec();
const decide = process.env.FLOOR_RULES === 'json-rules-engine' ? createJsonRulesDecider() : undefined;

async function answer(org: string, body: string): Promise<string> {
  const tx = JSON.parse(body) as Transaction;
  const decision = decide ? await decide(tx) : undefined;
  const value = await codec.encode(TRANSACTIONS_TOPIC, { ...tx, org_id: org });
  await bus.send(TRANSACTIONS_TOPIC, [{ key: `${org}:${tx.entity_id}`, value, ...(decision ? { headers: { [RESULTS_HEADER]: JSON.stringify(decision.results) } } : {}) }]);
  return JSON.stringify({ success: true, ...(decision ? { data: { triggeredRulesCount: decision.triggeredRulesCount } } : {}) });
}

const server = http.createServer((req, res) => {
  const org = ROUTE.exec(req.url ?? '')?.[1];
  if (req.method !== 'POST' || !org) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    answer(org, Buffer.concat(chunks).toString('utf8')).then(
      (json) => res.writeHead(200, { 'content-type': 'application/json' }).end(json),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
    );
  });
});
server.listen(0, '127.0.0.1', () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => {
  server.close();
  void bus.close().then(() => process.exit(0));
});
