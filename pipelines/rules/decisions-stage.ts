import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodType } from 'zod';
import type { Batch } from '../../infra/bus/types.js';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { describeZodError } from '../../schemas/zod-error.js';
import { breather } from '../../infra/breather.js';
import { startStage } from '../stage.js';
import { deadLetter, type Rejected } from '../dead-letter.js';
import type { DecisionSigner } from './decision-signing.js';
import type { Engine } from './engine.js';
import { DECISION_HEADER, RESULTS_HEADER } from './decision-headers.js';
import { DECISIONS_INSERT_SETTINGS, decisionLine, decisionSummary, isCompactRuleResults, ruleResults, TRANSACTIONS_TOPIC, transactionMessage, type DecisionSummary } from './transactions-topic.js';

/**
 * ClickHouse wants few large inserts (each one writes a part that is merged later), and many small
 * ones take CPU from POST /transaction in the same process. The batches of all partitions share
 * one insert (they are handled at once, up to PARTITIONS_AT_ONCE), and an insert waits until this
 * long after the previous one when every batch in it reached the end of its partition, so the log
 * gathers more for the next; with more behind, it is written at once and the wait never caps
 * throughput. Measured on Kafka: 27 rows per insert, one partition's batch each, before; about
 * a hundred after.
 */
const MIN_INSERT_INTERVAL_MS = 200;
const PARTITIONS_AT_ONCE = 6;

/** Whether the batch ends at its partition's end as of its fetch. */
const caughtUp = (batch: Batch): boolean => {
  const last = batch.messages.at(-1);
  return last === undefined || BigInt(last.offset) + 1n >= BigInt(batch.highWatermark);
};

/** One INSERT of JSONEachRow lines. */
async function insertRows(platform: Platform, rows: string[]): Promise<void> {
  // The lines are JSON already: an INSERT with a raw body, as the client's insert() would not take them.
  const values = Readable.from([rows.join('\n')], { objectMode: false });
  const { stream } = await platform.analytics.exec({ query: 'INSERT INTO decisions FORMAT JSONEachRow', values, clickhouse_settings: DECISIONS_INSERT_SETTINGS });
  stream.destroy();
}

/**
 * Rows (JSONEachRow lines) of concurrent batches gathered into one insert: `write` resolves once
 * its rows are in ClickHouse (so each batch still commits only after its own rows are written).
 * When a shared insert fails, each batch writes its own rows alone, so a row ClickHouse refuses
 * fails only its own batch (which the stage then splits down to that row).
 */
function sharedInserts(platform: Platform) {
  let open: string[] | undefined;
  let written: Promise<void> = Promise.resolve();
  let behind = false;
  let lastInsert = 0;
  return {
    write(rows: string[], batch: Batch): Promise<void> {
      if (!caughtUp(batch)) behind = true;
      if (open) {
        const shared = open;
        shared.push(...rows);
        return written.catch((err: unknown) => (shared.length > rows.length ? insertRows(platform, rows) : Promise.reject(err)));
      }
      const group = (open = [...rows]);
      const previous = written.catch(() => undefined);
      written = (async () => {
        await previous;
        const wait = lastInsert + MIN_INSERT_INTERVAL_MS - performance.now();
        if (wait > 0 && !behind) await sleep(wait);
        open = undefined; // later batches start the next insert
        behind = false;
        await insertRows(platform, group);
        lastInsert = performance.now();
      })();
      return written.catch((err: unknown) => (group.length > rows.length ? insertRows(platform, rows) : Promise.reject(err)));
    },
  };
}

type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

/** One JSON header, checked against its schema: a producer may send anything in it. */
function readHeader<T>(headers: Record<string, string>, name: string, schema: ZodType<T>): Read<T> {
  let value: unknown;
  try {
    value = JSON.parse(headers[name] ?? '');
  } catch {
    return { ok: false, reason: `${name} header must be JSON` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: `${name} header: ${describeZodError(parsed.error)}` };
}

/**
 * The rule results as checked RuleResult[] JSON: the compact text the rule engine writes is taken
 * as it is (one pattern, no parsing), any other text parsed and checked against the schema.
 */
function readResults(headers: Record<string, string>): Read<string> {
  const text = headers[RESULTS_HEADER];
  if (text !== undefined && isCompactRuleResults(text)) return { ok: true, value: text };
  const results = readHeader(headers, RESULTS_HEADER, ruleResults);
  return results.ok ? { ok: true, value: JSON.stringify(results.value) } : results;
}

function readDecision(headers: Record<string, string>): Read<{ summary: DecisionSummary; resultsJson: string }> {
  const summary = readHeader(headers, DECISION_HEADER, decisionSummary);
  if (!summary.ok) return summary;
  const results = readResults(headers);
  if (!results.ok) return results;
  return { ok: true, value: { summary: summary.value, resultsJson: results.value } };
}

/**
 * The `transactions` consumer (role `transactions`): writes every decision to ClickHouse
 * `decisions`. Messages that carry a decision signed by the rule engine (headers, see
 * transactions-topic.ts and decision-signing.ts) are written as they are; any other message (a
 * producer's, or one whose signature does not verify) is validated against the organization's fields and evaluated first
 * (an invalid one goes to `transactions.dlq` with the reason). A batch redelivered after a crash
 * writes (org_id, transaction_id) rows again, which ReplacingMergeTree collapses to the first
 * decision (see decisionVersion): read `decisions` with FINAL.
 */
export function startDecisionsStage(platform: Platform, engine: Engine, signer: DecisionSigner): Promise<Stoppable> {
  const inserts = sharedInserts(platform);
  return startStage({
    platform,
    name: 'rules.decisions',
    topic: TRANSACTIONS_TOPIC,
    schema: transactionMessage,
    concurrency: PARTITIONS_AT_ONCE,
    async handle(records, batch) {
      const rows: string[] = [];
      const rejected: Rejected[] = [];
      const breathe = breather(16);
      for (const { value, message } of records) {
        await breathe();
        const { org_id: orgId, ...tx } = value;
        if (signer.verifies(message.value, message.headers)) {
          const decision = readDecision(message.headers!);
          if (decision.ok) rows.push(decisionLine(orgId, tx, decision.value.summary, decision.value.resultsJson));
          else rejected.push({ message, reason: decision.reason });
          continue;
        }
        const ctx = await engine.context(orgId);
        const parsed = ctx.transaction.safeParse(tx);
        if (!parsed.success) {
          rejected.push({ message, reason: `invalid transaction: ${describeZodError(parsed.error)}` });
          continue;
        }
        const decided = await engine.decide(orgId, parsed.data);
        rows.push(decisionLine(orgId, parsed.data, decided.decision, decided.resultsJson));
      }
      await deadLetter(platform.bus, TRANSACTIONS_TOPIC, rejected);
      if (rows.length > 0) await inserts.write(rows, batch);
    },
  });
}
