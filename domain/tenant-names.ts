import { createHash } from 'node:crypto';

/**
 * ClickHouse names of the objects tenants create. A tenant's chosen name is never used raw: each
 * physical name is `<kind>_<tag>_<name>`, where the tag is 128 bits of SHA-256 of the org id and
 * the kind says what made it. Another organization's names all start with its own tag, so no name
 * it can choose lands on one of these (short of a SHA-256 preimage); one organization's counter
 * tables and custom tables cannot meet either.
 */
const tagOf = (orgId: string): string => createHash('sha256').update(orgId).digest('hex').slice(0, 32);

/** A custom table of the rule engine (`/tables`). */
export const customTableName = (orgId: string, table: string): string => `ct_${tagOf(orgId)}_${table}`;

/** A counter table (`table_name` of the counter configuration, `entity_counters` by default). */
export const counterTableName = (orgId: string, table: string): string => `cn_${tagOf(orgId)}_${table}`;
