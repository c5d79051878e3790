import type { TopicSchema } from './topic-schema.js';

/** How Avro messages are written and read: with a schema registry, or with the local schemas only. */
export interface AvroFormat {
  /** `value` is already in the topic's Avro shape and valid (TopicSchema.toAvro). */
  encode(schema: TopicSchema, value: Record<string, unknown>): Promise<Buffer>;
  /** A wire-format message of `topic`, in its JSON shape; `schema` is the local one, if any. */
  decode(topic: string, schema: TopicSchema | undefined, bytes: Buffer): Promise<unknown>;
}
