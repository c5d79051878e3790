import { hash, timingSafeEqual } from 'node:crypto';
import type { AnalyticsUserEntry } from '../../config.js';

const sha256 = (s: string): Buffer => hash('sha256', s, 'buffer');

/**
 * The interface's own users (ANALYTICS_USERS), kept only as SHA-256 digests of their passwords.
 * An unknown user is compared against a digest no password has, so a wrong user name costs the
 * same as a wrong password and the answer does not tell them apart.
 */
export class AnalyticsUsers {
  private readonly digests = new Map<string, Buffer>();
  private readonly nobody = sha256('\u0000no such user\u0000');

  constructor(entries: AnalyticsUserEntry[]) {
    for (const e of entries) this.digests.set(e.user, sha256(e.password));
  }

  verify(user: string, password: string): boolean {
    const known = this.digests.get(user);
    const equal = timingSafeEqual(known ?? this.nobody, sha256(password));
    return known !== undefined && equal;
  }
}
