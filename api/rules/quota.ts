import { HttpError } from '../http/errors.js';
import { QUOTA_VARIABLES, QuotaExceededError, type Quotas } from '../../domain/quotas.js';

/** The 400 for a request that would take the organization past quota `key`. */
export const overQuota = (quotas: Quotas, key: keyof Quotas, what: string): HttpError =>
  new HttpError(400, 'quota_exceeded', new QuotaExceededError(quotas[key], what, QUOTA_VARIABLES[key]).message);
