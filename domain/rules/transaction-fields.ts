import type { ValueType } from './values.js';

/**
 * The transaction request of Document 1 with the types expressions see. Required fields follow
 * CONTRACTS.md section 3; `transaction_time` is text (`HH:MM:SS` orders correctly as text).
 */
export const TRANSACTION_FIELDS: Readonly<Record<string, { type: ValueType; required: boolean }>> = {
  transaction_id: { type: 'string', required: true },
  entity_id: { type: 'string', required: true },
  amount: { type: 'number', required: true },
  currency: { type: 'string', required: true },
  transaction_date: { type: 'date', required: true },
  transaction_time: { type: 'string', required: true },
  transaction_type: { type: 'string', required: false },
  source_account_number: { type: 'string', required: false },
  source_account_name: { type: 'string', required: false },
  source_bank_code: { type: 'string', required: false },
  source_account_type: { type: 'string', required: false },
  beneficiary_account_number: { type: 'string', required: false },
  beneficiary_account_name: { type: 'string', required: false },
  beneficiary_bank_code: { type: 'string', required: false },
  beneficiary_account_type: { type: 'string', required: false },
  beneficiary_is_cross_border: { type: 'boolean', required: false },
  pep: { type: 'boolean', required: false },
  device_fingerprint: { type: 'string', required: false },
};

/** Keys a transaction message carries besides its fields; custom fields may not take these names. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['org_id', 'decision']);
