import { Partitioners, type ICustomPartitioner } from 'kafkajs';
import { partitionForKey } from '../murmur2.js';

/**
 * kafkajs's DefaultPartitioner (the Java client's murmur2 placement), with the hash the embedded
 * bus uses: plain 32-bit arithmetic instead of kafkajs's Long objects, which cost a few µs and
 * several allocations per keyed message on the producer's hot path. Messages without a string
 * key, or with an explicit partition, take kafkajs's own path.
 *
 * A message without a key keeps the partition it was first given. kafkajs places such messages
 * round-robin and places a batch again on every retry, while its idempotent producer resends the
 * retried batch under the sequence numbers of the first attempt: a keyless message moved to
 * another partition either collided with a sequence number that partition had already accepted
 * (the broker drops it as a duplicate: the message was lost) or failed the send with
 * OUT_OF_ORDER_SEQUENCE_NUMBER. Seen after a partition-level NOT_LEADER_OR_FOLLOWER on a topic
 * created a moment before.
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const fallback = Partitioners.DefaultPartitioner();
  const placed = new WeakMap<object, number>();
  return (args) => {
    const { message } = args;
    if (message.partition != null) return fallback(args);
    if (typeof message.key === 'string') return partitionForKey(message.key, args.partitionMetadata.length);
    if (message.key != null) return fallback(args); // a Buffer key: murmur2, the same on every retry
    const earlier = placed.get(message);
    if (earlier !== undefined && earlier < args.partitionMetadata.length) return earlier;
    const partition = fallback(args);
    placed.set(message, partition);
    return partition;
  };
};
