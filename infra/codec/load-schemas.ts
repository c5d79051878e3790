import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { topicSchema, type TopicSchema } from './topic-schema.js';

/** schemas/avro of this checkout: one `<topic>.avsc` per topic, dots of the topic name kept. */
export const defaultSchemasDir = fileURLToPath(new URL('../../schemas/avro/', import.meta.url));

/**
 * Reads every schema once, at start: a schema that does not parse stops the process then, not at
 * the first message of its topic.
 */
export function loadTopicSchemas(dir: string = defaultSchemasDir): Map<string, TopicSchema> {
  const schemas = new Map<string, TopicSchema>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.avsc')).sort()) {
    const topic = file.slice(0, -'.avsc'.length);
    const text = readFileSync(path.join(dir, file), 'utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path.join(dir, file)} is not JSON: ${(err as Error).message}`);
    }
    schemas.set(topic, topicSchema(topic, parsed));
  }
  return schemas;
}
