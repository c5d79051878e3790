/** ClickHouse answers DateTime64 columns as `YYYY-MM-DD hh:mm:ss.sss` in UTC; the API speaks RFC 3339. */
export const fromClickHouseTime = (s: string): string => new Date(`${s.replace(' ', 'T')}Z`).toISOString();
