import { z } from 'zod';
import { MAX_AMOUNT, MAX_WEIGHT } from '../../domain/bounds.js';
import { WINDOW_UNITS } from '../../domain/windows/units.js';
import { boundedNumber } from './bounds.js';
import { isKeyword } from '../../domain/rules/lexer.js';
import { TRANSACTION_FIELDS } from '../../domain/rules/transaction-fields.js';
import { isClockTime, isDate, parseDateTime, type ValueType } from '../../domain/rules/values.js';
import { RULE_WINDOW_UNITS, windowMs } from '../../domain/rules/window-state.js';

/** Request bodies of the rule engine (Document 1 part A, CONTRACTS.md section 3). */

/** Names expressions can reference: identifier syntax, and not a keyword of the expression language. */
const referable = (pattern: RegExp, rule: string) =>
  z
    .string()
    .regex(pattern, `must match ${rule}`)
    .refine((s) => !isKeyword(s), 'is a keyword of the expression language');

export const fieldName = referable(/^[a-z][a-z0-9_]{0,62}$/, '^[a-z][a-z0-9_]{0,62}$');
export const tableName = referable(/^[A-Za-z][A-Za-z0-9_]{0,62}$/, '^[A-Za-z][A-Za-z0-9_]{0,62}$');
const columnName = tableName;

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'datetime'] as const;
export const fieldBody = z.strictObject({ name: fieldName, fieldType: z.enum(FIELD_TYPES) });
export type FieldBody = z.infer<typeof fieldBody>;

const evaluation = z.strictObject({
  name: z.string().trim().min(1).max(200),
  expression: z.string().min(1).max(10_000),
  weight: boundedNumber(MAX_WEIGHT).default(1),
});
const action = z.strictObject({ type: z.string().min(1).max(200), description: z.string().max(2000) });

export const ruleBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000),
    threshold: boundedNumber(MAX_WEIGHT),
    useAi: z.boolean().default(false),
    active: z.boolean().default(true),
    evaluations: z.array(evaluation).min(1).max(100),
    actions: z.array(action).max(50),
  })
  .refine((r) => new Set(r.evaluations.map((e) => e.name)).size === r.evaluations.length, { message: 'evaluation names must be unique', path: ['evaluations'] });
export type RuleBody = z.infer<typeof ruleBody>;

export const statusBody = z.strictObject({ active: z.boolean() });
export const previewBody = z.strictObject({ transaction: z.record(z.string(), z.unknown()).optional() });

export const COLUMN_TYPES = ['string', 'number', 'boolean', 'datetime'] as const;
const column = z.strictObject({ name: columnName, type: z.enum(COLUMN_TYPES), nullable: z.boolean().default(true) });

const aggregate = z
  .strictObject({
    name: columnName,
    function: z.enum(['count', 'sum']),
    column: columnName.optional(),
    window: z.strictObject({ amount: z.number().int().positive(), unit: z.enum(RULE_WINDOW_UNITS) }),
  })
  .refine((a) => (a.function === 'sum') === (a.column !== undefined), { message: 'sum needs a column; count takes none', path: ['column'] })
  .refine((a) => windowMs(a.window) <= 90 * WINDOW_UNITS.days, { message: 'window is at most 90 days', path: ['window'] });

/**
 * windowState of an `event_stream` table: `entityColumn` names the entity (matched with the
 * transaction's entity_id), `timestampColumn` the event time, and each aggregate a count or sum
 * over a rolling window, read in expressions as `<table>.<aggregate name>`. Both columns are
 * stored non-null whatever the column list says: a row must carry them.
 */
export const windowState = z.strictObject({
  entityColumn: columnName.meta({ description: 'A string column naming the entity; stored non-null' }),
  timestampColumn: columnName.meta({ description: 'A datetime column, the event time; stored non-null' }),
  aggregates: z.array(aggregate).min(1).max(50),
});
export type WindowState = z.infer<typeof windowState>;

const optimization = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('disabled') }),
  z.strictObject({ status: z.literal('enabled'), windowState }),
]);

export const tableBody = z
  .strictObject({
    tableName,
    tableType: z.enum(['lookup', 'event_stream']).default('lookup'),
    idColumn: columnName.default('id'),
    columns: z.array(column).min(1).max(200),
    optimization,
  })
  .superRefine((t, ctx) => {
    const types = new Map(t.columns.map((c) => [c.name, c.type]));
    if (types.size !== t.columns.length) ctx.addIssue({ code: 'custom', message: 'column names must be unique', path: ['columns'] });
    const id = types.get(t.idColumn);
    if (id !== undefined && id !== 'string') ctx.addIssue({ code: 'custom', message: `id column '${t.idColumn}' must be of type string`, path: ['idColumn'] });
    if (t.optimization.status !== 'enabled') return;
    if (t.tableType !== 'event_stream') {
      ctx.addIssue({ code: 'custom', message: "optimization.status 'enabled' is only valid for event_stream tables", path: ['optimization', 'status'] });
      return;
    }
    const ws = t.optimization.windowState;
    const path = ['optimization', 'windowState'];
    const want = (col: string, type: string, where: string) => {
      if (types.get(col) !== type) ctx.addIssue({ code: 'custom', message: `${where} '${col}' must be a ${type} column of the table`, path });
    };
    want(ws.entityColumn, 'string', 'entityColumn');
    want(ws.timestampColumn, 'datetime', 'timestampColumn');
    const names = new Set<string>();
    for (const a of ws.aggregates) {
      if (a.column) want(a.column, 'number', `aggregate '${a.name}' column`);
      if (types.has(a.name) || a.name === t.idColumn || names.has(a.name)) ctx.addIssue({ code: 'custom', message: `aggregate name '${a.name}' is already used`, path });
      names.add(a.name);
    }
  });
export type TableBody = z.infer<typeof tableBody>;

export const pageQuery = z.object({
  limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be at least 1').max(500, 'limit must be at most 500').default(100),
  offset: z.coerce.number().int('offset must be an integer').min(0, 'offset must be at least 0').default(0),
});

export const rowsBody = z.array(z.record(z.string(), z.unknown())).max(10_000);
export const rowPatch = z.record(z.string(), z.unknown());

const dateText = (what: string) =>
  z.string().refine(isDate, `${what} must be a real date (YYYY-MM-DD)`).meta({ description: 'A calendar date, YYYY-MM-DD', example: '2026-11-26' });
const datetimeText = (what: string) =>
  z
    .string()
    .refine((s) => parseDateTime(s) !== null, `${what} must be an RFC 3339 datetime`)
    .meta({ description: 'An RFC 3339 datetime with its offset', example: '2026-11-26T10:15:00Z' });

function fieldSchema(name: string, type: ValueType): z.ZodType {
  switch (type) {
    case 'string':
      return z.string().max(10_000);
    case 'number':
      return boundedNumber(MAX_AMOUNT);
    case 'boolean':
      return z.boolean();
    case 'date':
      return dateText(name);
    case 'datetime':
      return datetimeText(name);
  }
}

const REQUIRED_SHAPES: Record<string, z.ZodType> = {
  transaction_id: z.string().min(1).max(256),
  entity_id: z.string().min(1).max(256),
  currency: z.string().regex(/^[A-Z]{3}$/, 'currency must be three upper-case letters').meta({ description: 'ISO 4217 code, three upper-case letters', example: 'USD' }),
  transaction_time: z
    .string()
    .refine(isClockTime, 'transaction_time must be a valid time (HH:MM:SS, 00:00:00 to 23:59:59)')
    .meta({ description: 'Time of day, HH:MM:SS from 00:00:00 to 23:59:59; stored as text, which orders correctly', example: '10:15:00' }),
};

/**
 * The transaction request of one organization: Document 1's fields plus its registered custom
 * fields; any other key is refused. Optional fields may be null (read as NULL by expressions).
 */
export function transactionSchema(customFields: { name: string; fieldType: ValueType }[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, f] of Object.entries(TRANSACTION_FIELDS)) {
    const base = REQUIRED_SHAPES[name] ?? fieldSchema(name, f.type);
    shape[name] = f.required ? base : base.nullish();
  }
  for (const f of customFields) shape[f.name] = fieldSchema(f.name, f.fieldType).nullish();
  return z.strictObject(shape);
}

/** Response bodies, as the OpenAPI document describes them (api/rules/openapi.ts). */

export const ruleEngineEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data, message: z.string().optional() });

export const ruleEngineErrorBody = z
  .object({
    statusCode: z.number().int(),
    message: z.string().meta({ description: 'What is wrong and where' }),
    code: z.number().int().meta({ description: 'The HTTP status again' }),
    error: z.string().meta({ description: 'Machine-readable reason, e.g. validation_error, not_found' }),
    timestamp: z.string().meta({ description: 'RFC 3339 instant of the answer' }),
  })
  .meta({ id: 'RuleEngineError' });

export const fieldView = z.object({ ...fieldBody.shape, orgId: z.string() }).meta({ id: 'CustomField' });
export const ruleView = z.object({ id: z.string(), ...ruleBody.shape }).meta({ id: 'Rule' });
export const tableView = z
  .object({ ...tableBody.shape, columns: z.array(column) })
  .meta({ id: 'CustomTableSchema', description: 'columns start with the id column (string, not nullable)' });
export const sqlPreviewItem = z.object({
  name: z.string(),
  sql: z.string().meta({ description: 'ClickHouse SQL with {pN:Type} parameters' }),
  params: z.record(z.string(), z.unknown()),
  error: z.string().optional().meta({ description: 'Present when the evaluation cannot compile' }),
});
export const decisionView = z.object({
  message: z.string(),
  processedRules: z.array(z.record(z.string(), z.unknown())),
  triggeredRulesCount: z.number().int(),
  trace: z.unknown().optional().meta({ description: 'Only when the server runs with TRANSACTION_TRACE=true' }),
  replay: z
    .literal(true)
    .optional()
    .meta({ description: 'Present when this transaction_id was evaluated before (within 24 hours): the answer is the stored decision, not a new evaluation; the Idempotent-Replayed header says the same' }),
});
const rowView = z.record(z.string(), z.unknown());
export const rowsPage = z.object({ rows: z.array(rowView), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const bulkResult = z.object({
  inserted_count: z.number().int(),
  skipped_count: z.number().int(),
  total_count: z.number().int(),
  warnings: z.array(z.record(z.string(), z.unknown())),
});
