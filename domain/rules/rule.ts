import { checkExpression } from './check.js';
import { ExpressionError } from './errors.js';
import { compile, type Compiled, type EvalContext } from './evaluate.js';
import { refsOf, type Ref, type Schema, type TExpr } from './typed-ast.js';

export interface Evaluation {
  name: string;
  expression: string;
  weight: number;
}

export interface Action {
  type: string;
  description: string;
}

export interface Rule {
  id: string;
  name: string;
  description: string;
  threshold: number;
  useAi: boolean;
  active: boolean;
  evaluations: Evaluation[];
  actions: Action[];
}

/** A rule as stored: every write makes a new version, and a decision names the version it ran. */
export type VersionedRule = Rule & { version: number };

export type CompiledEvaluation = Evaluation & ({ ok: true; expr: TExpr; fn: Compiled } | { ok: false; error: string });

export interface CompiledRule {
  rule: VersionedRule;
  evaluations: CompiledEvaluation[];
  /** Everything the rule reads, so a transaction fetches each source once for all rules. */
  refs: Ref[];
}

export interface ProcessedRule {
  ruleId: string;
  name: string;
  triggered: boolean;
  score: number;
  threshold: number;
  actions: Action[];
  evaluations: { name: string; result: boolean; error?: string }[];
}

/** The first problem of a rule's expressions, as "evaluation 'x': line 1, column 5: ...", or null. */
export function ruleProblem(evaluations: Pick<Evaluation, 'name' | 'expression'>[], schema: Schema): string | null {
  for (const e of evaluations) {
    try {
      checkExpression(e.expression, schema);
    } catch (err) {
      if (err instanceof ExpressionError) return `evaluation '${e.name}': ${err.message}`;
      throw err;
    }
  }
  return null;
}

/**
 * Compiles each evaluation once per rule version. An evaluation that no longer checks (a table
 * was deleted, a counter retired) stays in the rule as a failure that never holds, so the rule
 * still reports a result rather than failing the transaction.
 */
export function compileRule(rule: VersionedRule, schema: Schema): CompiledRule {
  const refs = new Map<string, Ref>();
  const evaluations = rule.evaluations.map((ev): CompiledEvaluation => {
    try {
      const expr = checkExpression(ev.expression, schema);
      refsOf(expr, refs);
      return { ...ev, ok: true, expr, fn: compile(expr) };
    } catch (err) {
      if (err instanceof ExpressionError) return { ...ev, ok: false, error: err.message };
      throw err;
    }
  });
  return { rule, evaluations, refs: [...refs.values()] };
}

/** A rule triggers when the weights of its true evaluations add up to at least its threshold. */
export function runRule(c: CompiledRule, ctx: EvalContext): ProcessedRule {
  let score = 0;
  const evaluations = c.evaluations.map((ev) => {
    if (!ev.ok) return { name: ev.name, result: false, error: ev.error };
    const result = ev.fn(ctx) === true;
    if (result) score += ev.weight;
    return { name: ev.name, result };
  });
  const triggered = score >= c.rule.threshold;
  return { ruleId: c.rule.id, name: c.rule.name, triggered, score, threshold: c.rule.threshold, actions: triggered ? c.rule.actions : [], evaluations };
}

/**
 * JSON of processed rules, as JSON.stringify would write it, from fragments fixed per rule
 * version: only `triggered`, `score` and each result vary per transaction. Decisions of 50 rules
 * are written on every transaction, so this is on the hot path.
 */
export function processedRulesJson(rules: CompiledRule[], processed: ProcessedRule[]): string {
  let out = '[';
  for (let i = 0; i < processed.length; i++) {
    const p = processed[i]!;
    const f = fragmentsOf(rules[i]!);
    if (i > 0) out += ',';
    out += `${f.head}"triggered":${p.triggered},"score":${JSON.stringify(p.score)},"threshold":${f.threshold},"actions":${p.triggered ? f.actions : '[]'},"evaluations":[`;
    for (let j = 0; j < p.evaluations.length; j++) {
      const e = p.evaluations[j]!;
      out += `${j > 0 ? ',' : ''}{"name":${f.evaluationNames[j]},"result":${e.result}${e.error === undefined ? '' : `,"error":${JSON.stringify(e.error)}`}}`;
    }
    out += ']}';
  }
  return `${out}]`;
}

/**
 * One rule's result as stored with the decision: `[rule_id, rule_version, triggered, score,
 * evaluation results]`, flags as 0/1 (the `rule_results` tuple of the `decisions` table). Names,
 * threshold and actions belong to the rule version and are not repeated per transaction.
 */
export type RuleResult = [ruleId: string, version: number, triggered: 0 | 1, score: number, evaluations: (0 | 1)[]];

/** The JSON of `RuleResult[]`, about a fifth of the processedRules JSON: it travels on the topic. */
export function ruleResultsJson(rules: CompiledRule[], processed: ProcessedRule[]): string {
  let out = '[';
  for (let i = 0; i < processed.length; i++) {
    const p = processed[i]!;
    if (i > 0) out += ',';
    out += `${fragmentsOf(rules[i]!).resultHead}${p.triggered ? 1 : 0},${JSON.stringify(p.score)},[`;
    for (let j = 0; j < p.evaluations.length; j++) out += `${j > 0 ? ',' : ''}${p.evaluations[j]!.result ? 1 : 0}`;
    out += ']]';
  }
  return `${out}]`;
}

/**
 * A stored rule result as the answer presents it, named from the rule version it ran (undefined
 * when that version is unknown: names empty, no actions): what a replayed transaction answers.
 * An evaluation's error is not stored, so a replay has none.
 */
export function storedProcessedRule(rule: Rule | undefined, [ruleId, , triggered, score, results]: RuleResult): ProcessedRule {
  return {
    ruleId,
    name: rule?.name ?? '',
    triggered: triggered === 1,
    score,
    threshold: rule?.threshold ?? 0,
    actions: triggered === 1 ? (rule?.actions ?? []) : [],
    evaluations: results.map((r, i) => ({ name: rule?.evaluations[i]?.name ?? '', result: r === 1 })),
  };
}

interface Fragments {
  head: string;
  resultHead: string;
  threshold: string;
  actions: string;
  evaluationNames: string[];
}
const fragments = new WeakMap<CompiledRule, Fragments>();

function fragmentsOf(c: CompiledRule): Fragments {
  let f = fragments.get(c);
  if (!f) {
    f = {
      head: `{"ruleId":${JSON.stringify(c.rule.id)},"name":${JSON.stringify(c.rule.name)},`,
      resultHead: `[${JSON.stringify(c.rule.id)},${c.rule.version},`,
      threshold: JSON.stringify(c.rule.threshold),
      actions: JSON.stringify(c.rule.actions),
      evaluationNames: c.evaluations.map((e) => JSON.stringify(e.name)),
    };
    fragments.set(c, f);
  }
  return f;
}
