import { describe, expect, it } from 'vitest';
import { encodeCursor, listQuery, pageFromRows, pageOf } from '../schemas/http/paging.js';

const ids = ['b', 'd', 'a', 'e', 'c'];
const walk = (items: string[], limit: number, between: (seen: string[]) => void = () => undefined) => {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = pageOf(items, (x) => x, listQuery().parse({ limit: String(limit), cursor }));
    seen.push(...page.items);
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
    between(seen);
  }
};

describe('cursor paging', () => {
  it('walks every item once in key order, the last page without a cursor', () => {
    expect(walk(ids, 2)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(walk(ids, 5)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pageOf(ids, (x) => x, listQuery().parse({ limit: '5' })).nextCursor).toBeNull();
    expect(pageOf([], (x: string) => x, listQuery().parse({}))).toEqual({ items: [], nextCursor: null });
  });

  it('neither repeats nor skips an item when another is removed between pages', () => {
    const items = [...ids];
    expect(walk(items, 2, () => items.splice(items.indexOf('a'), 1))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('the page a store queried itself: limit + 1 rows say a next page exists', () => {
    expect(pageFromRows(['a', 'b', 'c'], (x) => x, 2)).toEqual({ items: ['a', 'b'], nextCursor: encodeCursor('b') });
    expect(pageFromRows(['a', 'b'], (x) => x, 2)).toEqual({ items: ['a', 'b'], nextCursor: null });
  });

  it('refuses a limit out of bounds and a cursor that is not one, naming which', () => {
    expect(listQuery().parse({})).toEqual({ limit: 100, after: undefined });
    const problems = (q: Record<string, string>) => listQuery().safeParse(q).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems({ limit: '0' })).toEqual(['limit: limit must be at least 1']);
    expect(problems({ limit: '501' })).toEqual(['limit: limit must be at most 500']);
    expect(problems({ limit: 'x' })).toHaveLength(1);
    expect(problems({ cursor: 'not a cursor!' })).toEqual(['cursor: cursor must be the X-Next-Cursor (or next_cursor) of a previous page']);
    expect(listQuery(20, 50).safeParse({ limit: '51' }).success).toBe(false);
  });
});
