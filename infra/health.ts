/** The state of one part of a process (bus, window store, analytics, a consumer), for /health. */
export interface PartHealth {
  ok: boolean;
  /** Why a part is down (or what an up part warns of), in words fit for an operator: no secret, no stack. */
  detail?: string;
}

export const up: PartHealth = { ok: true };
export const down = (detail: string): PartHealth => ({ ok: false, detail });

export type Probe = () => PartHealth | Promise<PartHealth>;

export interface HealthReport {
  ok: boolean;
  parts: Record<string, { status: 'up' | 'down'; detail?: string }>;
}

/** Asks every part at once; a probe that throws or does not answer within `timeoutMs` counts as down. */
export async function checkParts(probes: Record<string, Probe>, timeoutMs: number): Promise<HealthReport> {
  const entries = await Promise.all(
    Object.entries(probes).map(async ([name, probe]): Promise<[string, PartHealth]> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<PartHealth>((resolve) => {
        timer = setTimeout(() => resolve(down(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return [name, await Promise.race([Promise.resolve().then(probe), late])];
      } catch {
        return [name, down('its check failed')];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return {
    ok: entries.every(([, h]) => h.ok),
    // An up part may carry a detail too: a warning that does not stop it (e.g. an empty risk list).
    parts: Object.fromEntries(entries.map(([name, h]) => [name, { status: h.ok ? 'up' : 'down', ...(h.detail === undefined ? {} : { detail: h.detail }) }])),
  };
}
