import avro from 'avsc';

/**
 * Avro logical type `json` over `string`: a field holding any JSON value (a payload whose shape
 * differs per event) travels as JSON text, and readers get the parsed value back, exactly as the
 * JSON encoding of the whole message would give it.
 */
export class JsonTextType extends avro.types.LogicalType {
  protected override _fromValue(text: string): unknown {
    return JSON.parse(text);
  }

  /** `undefined` (a value JSON cannot hold) makes the field invalid instead of silently vanishing. */
  protected override _toValue(value: unknown): string | undefined {
    return value === undefined ? undefined : JSON.stringify(value);
  }

  /**
   * Reading a writer's value (already decoded by the writer's type): a `json` writer hands over the
   * parsed value; a writer that declared the field as plain `string` wrote the same text.
   */
  protected override _resolve(writer: avro.Type): ((v: unknown) => unknown) | undefined {
    if (avro.Type.isType(writer, 'logical:json')) return (v: unknown) => v;
    if (avro.Type.isType(writer, 'string')) return (v: unknown) => JSON.parse(v as string);
    return undefined;
  }
}

/**
 * avsc options every Weir schema is parsed with: unions as plain values, `json` text fields.
 * A new object per parse: avsc records each named type in `opts.registry`, and a shared one would
 * refuse the second parse of the same record name.
 */
export function avroOptions(): Partial<avro.ForSchemaOptions> {
  return { wrapUnions: false, logicalTypes: { json: JsonTextType } };
}
