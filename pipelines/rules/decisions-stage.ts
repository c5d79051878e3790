import { setTimeout as sleep } from 'node:timers/promises';
import type { Batch } from '../../infra/bus/types.js';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../services/types.js';
import { describeZodError } from '../../api/http/validate.js';
import { startStage } from '../stage.js';
import { deadLetter, type Rejected } from '../dead-letter.js';
import type { Engine } from './engine.js';
import { DECISION_HEADER, decisionRow, decisionSummary, RULES_HEADER, serialise, TRANSACTIONS_TOPIC, transactionMessage, type SerialisedDecision } from './transactions-topic.js';

/**
 * ClickHouse wants few large inserts (each one writes a part that is merged later), and many small
 * ones take CPU from POST /transaction in the same process. A batch that reaches the end of its
 * partition waits until this long after the previous insert, so the log gathers more for the
 * next batches; a batch with more behind it is written at once, so the wait never caps throughput.
 */
const MIN_INSERT_INTERVAL_MS = 200;

/** Whether the batch ends at its partition's end as of its fetch. */
const caughtUp = (batch: Batch): boolean => {
  const last = batch.messages.at(-1);
  return last === undefined || BigInt(last.offset) + 1n >= BigInt(batch.highWatermark);
};

/** The decision headers of a message: a checked summary object and the rules array's JSON. */
function readDecision(headers: Record<string, string>, summaryText: string): { ok: true; value: SerialisedDecision } | { ok: false; reason: string } {
  const rulesJson = headers[RULES_HEADER];
  let summary: unknown;
  try {
    summary = JSON.parse(summaryText);
  } catch {
    return { ok: false, reason: `${DECISION_HEADER} header must be JSON` };
  }
  // The rules array is stored as the text it came in: re-parsing 50 rules per message would cost
  // more than the rest of the write. Only its shape is checked; POST /transaction wrote it.
  if (rulesJson === undefined || !rulesJson.startsWith('[') || !rulesJson.endsWith(']')) return { ok: false, reason: `${RULES_HEADER} header must be a JSON array` };
  const parsed = decisionSummary.safeParse(summary);
  if (!parsed.success) return { ok: false, reason: `${DECISION_HEADER} header: ${describeZodError(parsed.error)}` };
  return { ok: true, value: { summary: parsed.data, rulesJson: rulesJson! } };
}

/**
 * The `transactions` consumer (role `transactions`): writes every decision to ClickHouse
 * `decisions`. Messages that carry a decision (headers, see transactions-topic.ts) are written as they are; messages published by
 * producers without one are validated against the organization's fields and evaluated first
 * (an invalid one goes to `transactions.dlq` with the reason). A batch redelivered after a crash
 * writes the same (org_id, transaction_id) rows again, which ReplacingMergeTree collapses: read
 * `decisions` with FINAL.
 */
export function startDecisionsStage(platform: Platform, engine: Engine): Promise<Stoppable> {
  let lastInsert = 0;
  return startStage({
    platform,
    name: 'rules.decisions',
    topic: TRANSACTIONS_TOPIC,
    schema: transactionMessage,
    async handle(records, batch) {
      const rows: ReturnType<typeof decisionRow>[] = [];
      const rejected: Rejected[] = [];
      for (const { value, message } of records) {
        const { org_id: orgId, ...tx } = value;
        const header = message.headers?.[DECISION_HEADER];
        if (header !== undefined) {
          const decision = readDecision(message.headers!, header);
          if (decision.ok) rows.push(decisionRow(orgId, tx, decision.value));
          else rejected.push({ message, reason: decision.reason });
          continue;
        }
        const ctx = await engine.context(orgId);
        const parsed = ctx.transaction.safeParse(tx);
        if (!parsed.success) {
          rejected.push({ message, reason: `invalid transaction: ${describeZodError(parsed.error)}` });
          continue;
        }
        rows.push(decisionRow(orgId, parsed.data, serialise(await engine.decide(orgId, parsed.data))));
      }
      await deadLetter(platform.bus, TRANSACTIONS_TOPIC, rejected);
      if (rows.length > 0) {
        const wait = lastInsert + MIN_INSERT_INTERVAL_MS - performance.now();
        if (wait > 0 && caughtUp(batch)) await sleep(wait);
        await platform.analytics.insert({ table: 'decisions', format: 'JSONEachRow', values: rows });
        lastInsert = performance.now();
      }
    },
  });
}
