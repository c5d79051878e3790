/** The package ships no types: it answers the Redis Cluster hash slot of a key (its hash tag's CRC16 mod 16384). */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
