import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { Headers } from '../../infra/bus/types.js';
import { persistentSecret } from '../../infra/fs/persistent-secret.js';
import { DECISION_HEADER, RESULTS_HEADER, SIGNATURE_HEADER } from './decision-headers.js';

/**
 * Anyone allowed to produce to `transactions` could write any decision for any organization if
 * the consumer stored decision headers on trust. The rule engine signs what it decided (the
 * message value, which holds org_id and the transaction, and both decision headers) with a key
 * only Weir holds; the consumer stores a decision only when the signature verifies and evaluates
 * every other message itself, as it does a producer's.
 */
const VERSION = 'v1=';

export interface DecisionSigner {
  /** The signature header's value for a message value and its two decision headers. */
  sign(value: Buffer, decision: string, results: string): string;
  /** Whether the message carries decision headers signed with this key. */
  verifies(value: Buffer, headers: Headers | undefined): boolean;
}

export function decisionSigner(key: Buffer): DecisionSigner {
  const mac = (value: Buffer, decision: string, results: string): Buffer => {
    const h = createHmac('sha256', key);
    // Each part prefixed with its length, so no two different triples sign the same bytes.
    for (const part of [value, Buffer.from(decision), Buffer.from(results)]) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(part.length);
      h.update(len).update(part);
    }
    return h.digest();
  };
  return {
    sign: (value, decision, results) => VERSION + mac(value, decision, results).toString('base64url'),
    verifies(value, headers) {
      const signature = headers?.[SIGNATURE_HEADER];
      const decision = headers?.[DECISION_HEADER];
      const results = headers?.[RESULTS_HEADER];
      if (signature === undefined || decision === undefined || results === undefined || !signature.startsWith(VERSION)) return false;
      const given = Buffer.from(signature.slice(VERSION.length), 'base64url');
      const want = mac(value, decision, results);
      return given.length === want.length && timingSafeEqual(given, want);
    },
  };
}

/** The key file under DATA_DIR used when DECISION_SIGNING_KEY is unset. */
export const decisionKeyFile = (dataDir: string): string => path.join(dataDir, 'keys', 'decision-signing.key');

/**
 * DECISION_SIGNING_KEY when set (every process of a deployment must share it); otherwise a key
 * generated once and kept under DATA_DIR, so embedded restarts keep verifying their own messages.
 */
export async function loadDecisionSigner(config: { DECISION_SIGNING_KEY?: string | undefined; DATA_DIR: string }): Promise<DecisionSigner> {
  const key = config.DECISION_SIGNING_KEY !== undefined ? Buffer.from(config.DECISION_SIGNING_KEY) : await persistentSecret(decisionKeyFile(config.DATA_DIR));
  return decisionSigner(key);
}
