import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { keyDigest, type ApiKeyEntry, type Plan, type Rate } from '../../infra/api-keys.js';
import { forbidden, unauthorized } from './errors.js';

export interface Principal {
  orgId: string;
  plan: Plan;
  /** The key's own edge rate (API_KEYS `rate=`); without it the edge default applies. */
  rate?: Rate;
  /** Where the credential came from: the deployment list, or a database principal (video). */
  source: 'deployment' | 'principal' | 'bearer';
  principalId?: string;
  /** What the credential may do (video scopes); absent, everything: a deployment key carries every scope. */
  scopes?: readonly string[];
  /** A bearer token's expiry (epoch seconds): a token it mints may not outlive it. */
  expiresAt?: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}


/**
 * Keys are kept only as SHA-256 digests. A presented key is hashed, looked up by digest, and the
 * digests compared in constant time, so neither the map nor the comparison leaks key bytes.
 */
export class KeyRing {
  private readonly byDigest = new Map<string, { digest: Buffer; principal: Principal }>();

  constructor(entries: ApiKeyEntry[] = []) {
    for (const e of entries) this.add(e.key, { orgId: e.orgId, plan: e.plan, ...(e.rate ? { rate: e.rate } : {}), source: 'deployment' });
  }

  add(key: string, principal: Principal): void {
    const digest = keyDigest(key);
    this.byDigest.set(digest.toString('hex'), { digest, principal });
  }

  addDigest(digestHex: string, principal: Principal): void {
    this.byDigest.set(digestHex, { digest: Buffer.from(digestHex, 'hex'), principal });
  }

  removeDigest(digestHex: string): void {
    this.byDigest.delete(digestHex);
  }

  verify(key: string | undefined): Principal | null {
    return key ? this.verifyDigest(keyDigest(key)) : null;
  }

  /** The principal of a key already hashed with `keyDigest` (hot paths hash a presented key once). */
  verifyDigest(digest: Buffer): Principal | null {
    const hit = this.byDigest.get(digest.toString('hex'));
    return hit && timingSafeEqual(hit.digest, digest) ? hit.principal : null;
  }
}

/** 401 unless `x-api-key` names a known key; sets `req.principal`. */
export function authenticate(keys: KeyRing, header = 'x-api-key'): RequestHandler {
  return (req, _res, next) => {
    const principal = keys.verify(req.get(header) ?? undefined);
    if (!principal) return next(unauthorized());
    req.principal = principal;
    next();
  };
}

/**
 * 403 unless the principal's organization equals each named place: a header (e.g. `x-org-id`)
 * and/or a path parameter (e.g. `org_id`). A missing organization header is a 401 like a missing key.
 */
export function requireOrg(opts: { header?: string; param?: string }): RequestHandler {
  return (req, _res, next) => {
    const p = req.principal;
    if (!p) return next(unauthorized());
    try {
      if (opts.header) checkOrgHeader(p, opts.header, req.get(opts.header));
    } catch (err) {
      return next(err);
    }
    if (opts.param) {
      const v = req.params[opts.param];
      if (v !== undefined && v !== p.orgId) return next(forbidden());
    }
    next();
  };
}

/** The organization header's rule, for Express and the lanes alike: absent is a 401, another organization a 403. */
export function checkOrgHeader(principal: Principal, header: string, value: string | undefined): void {
  if (!value) throw unauthorized(`missing ${header} header`);
  if (value !== principal.orgId) throw forbidden();
}
