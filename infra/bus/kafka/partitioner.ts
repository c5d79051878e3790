import { Partitioners, type ICustomPartitioner } from 'kafkajs';
import { partitionForKey } from '../murmur2.js';

/**
 * kafkajs's DefaultPartitioner (the Java client's murmur2 placement), with the hash the embedded
 * bus uses: plain 32-bit arithmetic instead of kafkajs's Long objects, which cost a few µs and
 * several allocations per keyed message on the producer's hot path. Messages without a string
 * key, or with an explicit partition, take kafkajs's own path.
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const fallback = Partitioners.DefaultPartitioner();
  return (args) => {
    const { key, partition } = args.message;
    return typeof key === 'string' && partition == null ? partitionForKey(key, args.partitionMetadata.length) : fallback(args);
  };
};
