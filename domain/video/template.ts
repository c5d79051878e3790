import type { Aspect } from './ast.js';
import type { Variables } from './args.js';

/**
 * A saved template: a script with `{{name}}` placeholders and the schema of the variables that
 * fill them. `fillVariables` checks a caller's values against that schema (required, types) and
 * applies the defaults, reporting every problem at once.
 */

export const VARIABLE_TYPES = ['string', 'number', 'boolean'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];
export type VariableValue = string | number | boolean;

export interface TemplateVariable {
  name: string;
  type: VariableType;
  required: boolean;
  example?: VariableValue;
  default?: VariableValue;
}

export interface Template {
  name: string;
  description: string;
  version: string;
  variables: TemplateVariable[];
  /** Used when the script does not say: `mood` and `aspect`. */
  defaults: { mood?: string; aspect?: Aspect };
  source: string;
}

export interface VariableIssue {
  /** The variable's name. */
  variable: string;
  message: string;
}

export type FilledVariables = { ok: true; values: Variables } | { ok: false; issues: VariableIssue[] };

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The values a render of `template` uses: the caller's, checked, plus defaults for those left out. */
export function fillVariables(template: Pick<Template, 'variables'>, given: Readonly<Record<string, unknown>>): FilledVariables {
  const issues: VariableIssue[] = [];
  const values: Record<string, VariableValue> = {};
  const declared = new Map(template.variables.map((v) => [v.name, v]));
  for (const name of Object.keys(given)) {
    if (!declared.has(name)) issues.push({ variable: name, message: `is not a variable of this template (it has ${[...declared.keys()].join(', ') || 'none'})` });
  }
  for (const v of template.variables) {
    const value = Object.hasOwn(given, v.name) ? given[v.name] : undefined;
    if (value === undefined) {
      if (v.default !== undefined) values[v.name] = v.default;
      else if (v.required) issues.push({ variable: v.name, message: `is required (a ${v.type})` });
      continue;
    }
    if (typeof value !== v.type || (v.type === 'number' && !Number.isFinite(value))) {
      issues.push({ variable: v.name, message: `must be a ${v.type}, got ${typeOf(value)}` });
      continue;
    }
    values[v.name] = value as VariableValue;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, values };
}
