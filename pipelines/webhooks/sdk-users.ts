import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Migration } from '../../infra/analytics/types.js';
import type { Platform } from '../../infra/platform.js';
import { MAX_ATTEMPTS, type StartLimit } from '../../domain/one-time-codes.js';
import { countAttempt, digest, startRefusedBy } from '../one-time-codes.js';

/**
 * SDK users and their one-time-code sign-in. An organization's backend declares its users and
 * their `permissions.approver_roles`; a user signs in with a code sent to the notifier topic
 * `sdk.otp` (and echoed in the answer only with OTP_DEV_ECHO=true). A code is kept only as a
 * digest, in the window store, works for CODE_TTL_MS, and once; only a user's latest code works,
 * for at most MAX_ATTEMPTS answers; starts are limited per user and per address.
 */

export const OTP_TOPIC = 'sdk.otp';
export const CODE_TTL_MS = 10 * 60_000;
const USED_NS = 'sdk-otp-used';

export const sdkUsersMigration: Migration = {
  id: 'webhooks-004-sdk-users',
  statements: [
    `CREATE TABLE IF NOT EXISTS webhook_sdk_users (
      org_id String,
      email String,
      id String,
      approver_roles Array(String),
      version UInt64,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, email)`,
  ],
};

export interface SdkUser {
  id: string;
  email: string;
  permissions: { approver_roles: string[] };
}

const normalize = (email: string) => email.trim().toLowerCase();
/** A code's digest as a number the store keeps (48 bits of SHA-256 over the generation and the code). */
const codeDigest = (generation: number, code: string) => createHash('sha256').update(`${generation}:${code}`).digest().readUIntBE(0, 6);
const sameDigest = (a: number, b: number) => {
  const [x, y] = [Buffer.alloc(8), Buffer.alloc(8)];
  x.writeDoubleBE(a);
  y.writeDoubleBE(b);
  return timingSafeEqual(x, y);
};
/** The user's live generation (`g`). */
const userEntity = (orgId: string, email: string) => ({ scope: orgId, id: `sdk-otp:${digest(normalize(email))}` });
/** One generation's code digest (`c`), issue time (`t`) and attempts (`a`). */
const codeEntity = (orgId: string, email: string, generation: number) => ({ scope: orgId, id: `sdk-otp:${digest(normalize(email))}:${generation}` });

export function createSdkUsers(platform: Platform) {
  const { analytics, windows, clock } = platform;
  let version = 0;

  async function find(orgId: string, where: string, params: Record<string, string>): Promise<SdkUser | undefined> {
    const rs = await analytics.query({
      query: `SELECT id, email, approver_roles FROM webhook_sdk_users FINAL WHERE org_id = {org:String} AND ${where} LIMIT 1`,
      query_params: { org: orgId, ...params },
      format: 'JSONEachRow',
    });
    const [row] = (await rs.json()) as { id: string; email: string; approver_roles: string[] }[];
    return row ? { id: row.id, email: row.email, permissions: { approver_roles: row.approver_roles } } : undefined;
  }

  return {
    byEmail: (orgId: string, email: string) => find(orgId, 'email = {email:String}', { email: normalize(email) }),
    byId: (orgId: string, id: string) => find(orgId, 'id = {id:String}', { id }),

    async put(orgId: string, email: string, approverRoles: string[]): Promise<SdkUser> {
      const existing = await this.byEmail(orgId, email);
      const user: SdkUser = { id: existing?.id ?? `usr_${randomBytes(10).toString('hex')}`, email: normalize(email), permissions: { approver_roles: approverRoles } };
      version = Math.max(version + 1, clock.now() * 1000);
      await analytics.insert({
        table: 'webhook_sdk_users',
        format: 'JSONEachRow',
        values: [{ org_id: orgId, email: user.email, id: user.id, approver_roles: approverRoles, version, updated_at: new Date(clock.now()).toISOString() }],
      });
      return user;
    },

    /**
     * Counts the start against the per-user and per-address limits (unknown addresses count too,
     * so the answers match), then issues a code to a known user. The code's generation becomes the
     * user's live one: every earlier code stops working.
     */
    async startSignIn(orgId: string, email: string, address: string): Promise<{ refused: StartLimit } | { code: string | null }> {
      const refused = await startRefusedBy(windows, orgId, 'sdk-sign-in', { user: normalize(email), address }, clock.now());
      if (refused) return { refused };
      if (!(await this.byEmail(orgId, email))) return { code: null };
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      // Milliseconds and a random tie-break, below 2^53: a later start has the larger generation.
      const generation = clock.now() * 100 + randomInt(0, 100);
      await windows.apply([{ entity: codeEntity(orgId, email, generation), updates: [{ kind: 'max', series: 'c', value: codeDigest(generation, code) }, { kind: 'max', series: 't', value: clock.now() }] }]);
      await windows.apply([{ entity: userEntity(orgId, email), updates: [{ kind: 'max', series: 'g', value: generation }] }]);
      await platform.bus.send(OTP_TOPIC, [{ key: orgId, value: Buffer.from(JSON.stringify({ org_id: orgId, channel: 'email', to: normalize(email), code, purpose: 'sdk_sign_in' })) }]);
      return { code };
    },

    /** The user when the code is their live one, unexpired, not yet used, and among the first MAX_ATTEMPTS answers to it. */
    async verifyCode(orgId: string, email: string, code: string): Promise<SdkUser | undefined> {
      const [generation] = await windows.read(userEntity(orgId, email), [{ kind: 'max', series: 'g' }]);
      if (generation === null || generation === undefined) return undefined;
      const entity = codeEntity(orgId, email, generation);
      const [stored, issuedAt] = await windows.read(entity, [{ kind: 'max', series: 'c' }, { kind: 'max', series: 't' }]);
      if (stored == null || issuedAt == null || clock.now() - issuedAt >= CODE_TTL_MS) return undefined;
      if ((await countAttempt(windows, entity)) > MAX_ATTEMPTS) return undefined;
      if (!sameDigest(codeDigest(generation, code), stored)) return undefined;
      // Two verifications of the right code at once: the first to spend the generation wins.
      const [first] = await windows.claim(orgId, USED_NS, [`${digest(normalize(email))}:${generation}`], CODE_TTL_MS);
      return first ? this.byEmail(orgId, email) : undefined;
    },
  };
}

export type SdkUsers = ReturnType<typeof createSdkUsers>;
