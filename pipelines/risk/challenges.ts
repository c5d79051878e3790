import { randomInt, randomUUID } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { ChallengeIssue } from '../../schemas/http/risk.js';
import { CODE_TTL_MS, codeHash, codeMatches, formatCode } from '../../domain/risk/challenge.js';
import { failureMessage, MAX_ATTEMPTS, type CodeFailure, type StartLimit } from '../../domain/one-time-codes.js';
import { countAttempt, startRefusedBy } from '../one-time-codes.js';
import type { OtpNotifier } from '../../domain/risk/notifier.js';
import { riskScope } from '../../domain/risk/state.js';
import { fromClickHouseTime } from './ch-time.js';
import { findRequest } from './requests.js';
import { RISK_CHECKS_TOPIC, type RiskRecord } from './record.js';

const USED_NAMESPACE = 'risk.challenge.used';
/** The one-time-code purpose whose start counters a GDPR delete also removes. */
export const CHALLENGE_PURPOSE = 'risk-challenge';
export const challengeEntity = (org: string, id: string) => ({ scope: riskScope(org), id: `ch:${id}` });

export interface Issued {
  challenge_id: string;
  type: ChallengeIssue['challenge_type'];
  expires_at: string;
  dev_code?: string;
}

export type Verification =
  | { verified: true; decision: { outcome: 'allow'; reasons: string[] } }
  | { verified: false; error: 'invalid_code'; reason: CodeFailure; message: string; attempts_left: number };

export interface Challenges {
  /** null when the organization has no check with the request id; `refused` when a start limit is reached. */
  issue(org: string, body: ChallengeIssue): Promise<Issued | { refused: StartLimit } | null>;
  verify(org: string, body: { challenge_id: string; code: string }): Promise<Verification>;
}

const refusal = (reason: CodeFailure, attemptsLeft: number): Verification => ({
  verified: false, error: 'invalid_code', reason, message: failureMessage(reason, attemptsLeft), attempts_left: attemptsLeft,
});


/**
 * Step-up challenges. The code's hash, expiry and check are a row of `risk_challenges`; only the
 * latest challenge of a check works (its purpose: it unlocks that check); attempts count in the window store (`ch:<id>` / a, counted
 * before the code is compared, so parallel guesses cannot pass MAX_ATTEMPTS), and spending a code
 * is a claim, so two concurrent verifications of one code cannot both succeed. Issues are limited
 * per user and per destination. A verified challenge publishes an override that turns its check into allow.
 */
export function createChallenges(deps: { platform: Platform; notifier: OtpNotifier; devEcho: boolean }): Challenges {
  const { platform } = deps;
  const { analytics, windows, clock } = platform;
  return {
    async issue(org, body) {
      const known = await findRequest(platform, org, body.request_id);
      if (!known) return null;
      const destination = body.challenge_type === 'email_otp' ? body.email! : body.phone!;
      // The check's user is known once the pipeline wrote the check; until then the check stands for it.
      const refused = await startRefusedBy(windows, org, CHALLENGE_PURPOSE, { user: known.user_id ?? `request:${body.request_id}`, address: destination }, clock.now());
      if (refused) return { refused };
      const challenge_id = randomUUID();
      const code = formatCode(randomInt(0, 1_000_000));
      const now = clock.now();
      const expires_at = new Date(now + CODE_TTL_MS).toISOString();
      await analytics.insert({
        table: 'risk_challenges',
        format: 'JSONEachRow',
        values: [{ org_id: org, challenge_id, request_id: body.request_id, user_id: known.user_id, type: body.challenge_type, destination_hash: codeHash(challenge_id, destination), code_hash: codeHash(challenge_id, code), created_at: new Date(now).toISOString(), expires_at }],
      });
      await deps.notifier.send({ org_id: org, challenge_id, channel: body.challenge_type === 'email_otp' ? 'email' : 'sms', destination, code, expires_at });
      return { challenge_id, type: body.challenge_type, expires_at, ...(deps.devEcho ? { dev_code: code } : {}) };
    },

    async verify(org, body) {
      const rs = await analytics.query({
        query: 'SELECT request_id, user_id, code_hash, expires_at FROM risk_challenges FINAL WHERE org_id = {org:String} AND challenge_id = {id:String} LIMIT 1',
        query_params: { org, id: body.challenge_id },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ request_id: string; user_id: string | null; code_hash: string; expires_at: string }>();
      if (!row) return refusal('unknown', 0);
      const entity = challengeEntity(org, body.challenge_id);
      const now = clock.now();
      const [used] = await windows.read(entity, [{ kind: 'max', series: 'used' }]);
      if (used) return refusal('used', 0);
      if (now >= Date.parse(fromClickHouseTime(row.expires_at))) return refusal('expired', 0);
      const latest = await analytics.query({
        query: 'SELECT challenge_id FROM risk_challenges FINAL WHERE org_id = {org:String} AND request_id = {request:String} ORDER BY created_at DESC, challenge_id DESC LIMIT 1',
        query_params: { org, request: row.request_id },
        format: 'JSONEachRow',
      });
      if ((await latest.json<{ challenge_id: string }>())[0]?.challenge_id !== body.challenge_id) return refusal('replaced', 0);
      const attempts = await countAttempt(windows, entity);
      if (attempts > MAX_ATTEMPTS) return refusal('exhausted', 0);
      if (!codeMatches(body.challenge_id, body.code, row.code_hash)) return refusal('mismatch', MAX_ATTEMPTS - attempts);
      const [first] = await windows.claim(org, USED_NAMESPACE, [body.challenge_id], CODE_TTL_MS * 2);
      if (!first) return refusal('used', 0);
      await windows.apply([{ entity, updates: [{ kind: 'max', series: 'used', value: 1 }] }]);
      const reasons = ['Challenge verified'];
      const record: RiskRecord = { kind: 'override', org_id: org, request_id: row.request_id, user_id: row.user_id, challenge_id: body.challenge_id, outcome: 'allow', reason: reasons[0]!, at: new Date(now).toISOString() };
      await platform.bus.send(RISK_CHECKS_TOPIC, [{ key: org, value: await platform.codec.encode(RISK_CHECKS_TOPIC, record) }]);
      return { verified: true, decision: { outcome: 'allow', reasons } };
    },
  };
}
