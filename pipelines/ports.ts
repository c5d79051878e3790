/**
 * Ports that one service offers another inside the process. The rule engine reads counters
 * through CounterReader; the counters service implements it (createCounterReader in services/counters.ts).
 */
export interface CounterColumn {
  name: string;
  /** count and sum are numbers; last_seen is a timestamp (RFC 3339 string, or null). */
  type: 'number' | 'datetime';
}

export interface CounterReader {
  /** The counter table name rules qualify with (`entity_counters` by default) and the counters declared in it. */
  describe(orgId: string): Promise<{ tableName: string; counters: CounterColumn[] }>;
  /** Live values of one entity as of now (not as of the last flush); unknown entities read 0 / null. */
  values(orgId: string, entityId: string): Promise<Record<string, number | string | null>>;
}
