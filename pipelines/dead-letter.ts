import type { Bus, ConsumedMessage } from '../infra/bus/types.js';
import { DLQ_REASON_HEADER, dlqTopic } from '../infra/bus/types.js';

export interface Rejected {
  message: ConsumedMessage;
  reason: string;
}

/**
 * Sends messages of `topic` that failed validation to `<topic>.dlq`, unchanged, with the reason and
 * their source position in headers. Callers send before committing: a crash redelivers, never drops.
 */
export async function deadLetter(bus: Bus, topic: string, rejected: Rejected[]): Promise<void> {
  if (rejected.length === 0) return;
  await bus.send(
    dlqTopic(topic),
    rejected.map(({ message, reason }) => ({
      key: message.key,
      value: message.value,
      headers: { ...message.headers, [DLQ_REASON_HEADER]: reason.slice(0, 1000), 'x-weir-source-offset': `${message.partition}:${message.offset}` },
    })),
  );
}
