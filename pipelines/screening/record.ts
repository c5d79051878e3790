import { z } from 'zod';
import { DECISIONS } from '../../domain/screening/screen.js';

/** One screening's audit record on topic `screenings` (schemas/avro/screenings.avsc). */
export const SCREENINGS_TOPIC = 'screenings';

export const screeningRecord = z.object({
  audit_id: z.string().min(1),
  org_id: z.string().min(1),
  name: z.string(),
  decision: z.enum(DECISIONS),
  // The Avro codec decodes null as an absent field.
  score: z.number().min(0).max(1).nullish(),
  entity_id: z.string().nullish(),
  list_version: z.string().min(1),
  created_at: z.iso.datetime({ offset: true }),
  /** The request and the response, as sent to the client. */
  payload: z.unknown(),
});
export type ScreeningRecord = z.infer<typeof screeningRecord>;
