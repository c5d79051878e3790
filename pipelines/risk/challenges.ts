import { randomInt, randomUUID } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { ChallengeIssue } from '../../schemas/http/risk.js';
import { CODE_TTL_MS, codeHash, codeMatches, formatCode, precheck } from '../../domain/risk/challenge.js';
import type { OtpNotifier } from '../../domain/risk/notifier.js';
import { riskScope } from '../../domain/risk/state.js';
import { fromClickHouseTime } from './ch-time.js';
import { findRequest } from './requests.js';
import { RISK_CHECKS_TOPIC, type RiskRecord } from './record.js';

const USED_NAMESPACE = 'risk.challenge.used';
export const challengeEntity = (org: string, id: string) => ({ scope: riskScope(org), id: `ch:${id}` });

export interface Challenges {
  /** null when the organization has no check with the request id. */
  issue(org: string, body: ChallengeIssue): Promise<{ challenge_id: string; type: ChallengeIssue['challenge_type']; expires_at: string; dev_code?: string } | null>;
  verify(org: string, body: { challenge_id: string; code: string }): Promise<{ verified: boolean; decision?: { outcome: 'allow'; reasons: string[] }; error?: 'invalid_code' }>;
}

/**
 * Step-up challenges. The code's hash, expiry and check are a row of `risk_challenges`; attempts
 * count in the window store (`ch:<id>` / a), and spending a code is a claim, so two concurrent
 * verifications of one code cannot both succeed. A verified challenge publishes an override that
 * turns its check into allow.
 */
export function createChallenges(deps: { platform: Platform; notifier: OtpNotifier; devEcho: boolean }): Challenges {
  const { platform } = deps;
  const { analytics, windows, clock } = platform;
  return {
    async issue(org, body) {
      const known = await findRequest(platform, org, body.request_id);
      if (!known) return null;
      const challenge_id = randomUUID();
      const code = formatCode(randomInt(0, 1_000_000));
      const now = clock.now();
      const expires_at = new Date(now + CODE_TTL_MS).toISOString();
      const destination = body.challenge_type === 'email_otp' ? body.email! : body.phone!;
      await analytics.insert({
        table: 'risk_challenges',
        format: 'JSONEachRow',
        values: [{ org_id: org, challenge_id, request_id: body.request_id, user_id: known.user_id, type: body.challenge_type, destination_hash: codeHash(challenge_id, destination), code_hash: codeHash(challenge_id, code), created_at: new Date(now).toISOString(), expires_at }],
      });
      await deps.notifier.send({ org_id: org, challenge_id, channel: body.challenge_type === 'email_otp' ? 'email' : 'sms', destination, code, expires_at });
      return { challenge_id, type: body.challenge_type, expires_at, ...(deps.devEcho ? { dev_code: code } : {}) };
    },

    async verify(org, body) {
      const refused = { verified: false, error: 'invalid_code' as const };
      const rs = await analytics.query({
        query: 'SELECT request_id, user_id, code_hash, expires_at FROM risk_challenges FINAL WHERE org_id = {org:String} AND challenge_id = {id:String} LIMIT 1',
        query_params: { org, id: body.challenge_id },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ request_id: string; user_id: string | null; code_hash: string; expires_at: string }>();
      if (!row) return refused;
      const entity = challengeEntity(org, body.challenge_id);
      const [attempts] = await windows.read(entity, [{ kind: 'sum', series: 'a', floor: 0 }]);
      const now = clock.now();
      if (precheck({ expiresAt: Date.parse(fromClickHouseTime(row.expires_at)), attempts: attempts ?? 0 }, now)) return refused;
      await windows.apply([{ entity, updates: [{ kind: 'sum', series: 'a', bucket: 0, delta: 1, floor: 0 }] }]);
      if (!codeMatches(body.challenge_id, body.code, row.code_hash)) return refused;
      const [first] = await windows.claim(org, USED_NAMESPACE, [body.challenge_id], CODE_TTL_MS * 2);
      if (!first) return refused;
      const reasons = ['Challenge verified'];
      const record: RiskRecord = { kind: 'override', org_id: org, request_id: row.request_id, user_id: row.user_id, challenge_id: body.challenge_id, outcome: 'allow', reason: reasons[0]!, at: new Date(now).toISOString() };
      await platform.bus.send(RISK_CHECKS_TOPIC, [{ key: org, value: await platform.codec.encode(RISK_CHECKS_TOPIC, record) }]);
      return { verified: true, decision: { outcome: 'allow', reasons } };
    },
  };
}
