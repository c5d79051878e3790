import avro from 'avsc';
import { CodecError } from './types.js';
import { avroOptions } from './json-text.js';

type Plain = Record<string, unknown>;

/**
 * A topic's Avro record schema and the mapping between its Avro shape and the JSON shape the
 * topic's consumers validate, so both encodings decode to the same value:
 * - null and absent are one thing in Avro (nullable fields default to null): decoding omits null
 *   fields, as a JSON producer omits absent ones;
 * - the record attribute `weir.extraFields` names a map field that carries every top-level key the
 *   record does not declare (a transaction's custom fields): packed on encode, spread on decode.
 */
export interface TopicSchema {
  topic: string;
  /** Schema text as registered with a schema registry. */
  text: string;
  type: avro.Type;
  /** The Avro shape of a JSON-shaped value; throws CodecError naming every misfit. */
  toAvro(value: unknown): Plain;
  /** The JSON shape of a decoded Avro record. */
  fromAvro(record: unknown): Plain;
}

interface RecordSchema {
  type: 'record';
  name: string;
  fields: { name: string }[];
  'weir.extraFields'?: string;
}

function isPlainObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

function isRecordSchema(s: unknown): s is RecordSchema {
  return isPlainObject(s) && s.type === 'record' && typeof s.name === 'string' && Array.isArray(s.fields);
}

/** Decoded Avro records are class instances; consumers and `toEqual` expect plain data. */
function toPlain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toPlain);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** Top-level fields of a decoded record without its nulls (see TopicSchema). */
export function plainRecord(record: unknown): Plain {
  if (!isPlainObject(record)) throw new CodecError('Avro message is not a record');
  const out: Plain = {};
  for (const [k, v] of Object.entries(record)) if (v !== null && v !== undefined) out[k] = toPlain(v);
  return out;
}

function preview(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Misfits named by their JSON path: an undeclared key is top-level there, not inside the extras map. */
function describeMisfits(topic: string, type: avro.Type, value: Plain, declared: Set<string>, extraField: string | undefined): string {
  const misfits: string[] = [];
  type.isValid(value, {
    noUndeclaredFields: true,
    errorHook: (path, v, t) => {
      if (path.length === 0) {
        misfits.push(`undeclared ${Object.keys(value).filter((k) => !declared.has(k)).join(', ')}`);
        return;
      }
      const jsonPath = extraField !== undefined && path[0] === extraField && path.length > 1 ? path.slice(1) : path;
      misfits.push(`${jsonPath.join('.')}: ${preview(v)} does not fit ${JSON.stringify(t.schema())}`);
    },
  });
  return `message does not fit the ${topic} schema: ${misfits.slice(0, 5).join('; ')}`;
}

export function topicSchema(topic: string, schema: unknown): TopicSchema {
  if (!isRecordSchema(schema)) throw new Error(`schema of topic ${topic} must be an Avro record`);
  const type = avro.Type.forSchema(schema as avro.Schema, avroOptions());
  const declared = new Set(schema.fields.map((f) => f.name));
  const extraField = schema['weir.extraFields'];
  if (extraField !== undefined && !declared.has(extraField)) throw new Error(`schema of topic ${topic}: weir.extraFields names no field`);

  function toAvro(value: unknown): Plain {
    if (!isPlainObject(value)) throw new CodecError(`message of topic ${topic} must be an object`);
    let out: Plain = value;
    if (extraField !== undefined) {
      if (extraField in value) throw new CodecError(`message of topic ${topic}: key ${extraField} is reserved (it carries the undeclared keys in Avro)`);
      const fields: Plain = {};
      const extras: Plain = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        if (declared.has(k)) fields[k] = v;
        else extras[k] = v;
      }
      out = { ...fields, [extraField]: extras };
    }
    if (!type.isValid(out, { noUndeclaredFields: true })) throw new CodecError(describeMisfits(topic, type, out, declared, extraField));
    return out;
  }

  const fieldNames = schema.fields.map((f) => f.name);
  /**
   * plainRecord, by the declared fields (a record decoded with `type` has exactly those): Object.entries
   * of every record cost more than decoding it (issue 31, the counter stage on Avro).
   */
  function declaredFields(record: unknown): Plain {
    if (!isPlainObject(record)) throw new CodecError('Avro message is not a record');
    const out: Plain = {};
    for (const name of fieldNames) {
      const v = record[name];
      if (v !== null && v !== undefined) out[name] = toPlain(v);
    }
    return out;
  }

  function fromAvro(record: unknown): Plain {
    const plain = declaredFields(record);
    if (extraField === undefined) return plain;
    const { [extraField]: extras, ...fields } = plain;
    // Declared fields win over a map entry of the same name (only a hand-made message has one).
    return isPlainObject(extras) ? { ...plainRecord(extras), ...fields } : fields;
  }

  return { topic, text: JSON.stringify(schema), type, toAvro, fromAvro };
}
