import { Histogram, type Registry } from 'prom-client';

/** Where POST /transaction spends its time: evaluating, and waiting for the log to hold the message. */
export interface RulesMetrics {
  decide: Histogram;
  publish: Histogram;
}

const BUCKETS = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];
const byRegistry = new WeakMap<Registry, RulesMetrics>();

/** Declared once per registry (a process may create the service more than once in tests). */
export function rulesMetrics(registry: Registry): RulesMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = {
      decide: new Histogram({ name: 'weir_rules_decide_seconds', help: 'Evaluation of one transaction (data fetch and every rule)', buckets: BUCKETS, registers: [registry] }),
      publish: new Histogram({ name: 'weir_rules_publish_seconds', help: 'Publishing one decided transaction until the log holds it', buckets: BUCKETS, registers: [registry] }),
    };
    byRegistry.set(registry, m);
  }
  return m;
}
