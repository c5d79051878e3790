/**
 * A connection made on first use and shared by every caller after it. A failed attempt is
 * forgotten, so the next caller tries again instead of inheriting the old rejection.
 */
export interface Lazy<T> {
  get(): Promise<T>;
  /** The value when a connection was made (or is being made), for closing. */
  current(): Promise<T> | undefined;
}

export function lazy<T>(connect: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  return {
    get() {
      if (!pending) {
        const attempt = connect();
        pending = attempt;
        attempt.catch(() => {
          if (pending === attempt) pending = undefined;
        });
      }
      return pending;
    },
    current: () => pending,
  };
}
