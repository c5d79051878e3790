import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Migration } from '../../infra/analytics/types.js';
import type { Platform } from '../../infra/platform.js';

/**
 * SDK users and their one-time-code sign-in. An organization's backend declares its users and
 * their `permissions.approver_roles`; a user signs in with a code sent to the notifier topic
 * `sdk.otp` (and echoed in the answer only with OTP_DEV_ECHO=true). A code is kept only as a
 * digest, in the window store, for CODE_TTL_MS, and works once.
 */

export const OTP_TOPIC = 'sdk.otp';
export const CODE_TTL_MS = 10 * 60_000;
const CODE_NS = 'sdk-otp';

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
const codeEntry = (email: string, code: string) => `${normalize(email)}:${createHash('sha256').update(code).digest('hex')}`;

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

    /** Issues a code for a known user (an unknown address gets none, and the caller cannot tell). */
    async startSignIn(orgId: string, email: string): Promise<string | null> {
      if (!(await this.byEmail(orgId, email))) return null;
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await windows.claim(orgId, CODE_NS, [codeEntry(email, code)], CODE_TTL_MS);
      await platform.bus.send(OTP_TOPIC, [{ key: orgId, value: Buffer.from(JSON.stringify({ org_id: orgId, channel: 'email', to: normalize(email), code, purpose: 'sdk_sign_in' })) }]);
      return code;
    },

    /**
     * The user when the code is one issued to them and not yet used. A claim answers false for an
     * entry that exists: that is the check; releasing it makes the code single-use.
     */
    async verifyCode(orgId: string, email: string, code: string): Promise<SdkUser | undefined> {
      const entry = codeEntry(email, code);
      const [fresh] = await windows.claim(orgId, CODE_NS, [entry], CODE_TTL_MS);
      await windows.release(orgId, CODE_NS, [entry]);
      return fresh ? undefined : this.byEmail(orgId, email);
    },
  };
}

export type SdkUsers = ReturnType<typeof createSdkUsers>;
