import { Diagnostics, excerpt, type Diagnostic, type Position, hint } from './diagnostics.js';
import { describeToken, tokenize, type StringPart, type Token } from './lexer.js';
import type { Text } from './ast.js';

/** Values a template may fill in. */
export type Variables = Readonly<Record<string, string | number | boolean>>;

/**
 * Reads one directive's arguments in order. Each `expect*` reports what it wanted where it wanted
 * it and returns undefined, so a directive with a bad argument still lets the others be checked.
 * A bare `{{name}}` argument is replaced by its value, read as the argument the directive wants.
 */
export class ArgReader {
  private i = 0;

  constructor(
    readonly directive: Token & { kind: 'word' },
    private readonly tokens: Token[],
    private readonly variables: Variables,
    private readonly diags: Diagnostics,
    /** The lexer already reported a dropped token on this line. */
    readonly damaged = false,
  ) {}

  get name(): string {
    return this.directive.value;
  }

  get at(): Position {
    return { line: this.directive.line, column: this.directive.column };
  }

  /** Where the next argument is, or the directive itself when none is left. */
  private get here(): Position {
    return this.tokens[this.i] ?? this.at;
  }

  get more(): boolean {
    return this.i < this.tokens.length;
  }

  peekWord(): string | undefined {
    const t = this.tokens[this.i];
    return t?.kind === 'word' ? t.value : undefined;
  }

  private take(what: string, optional: boolean): Token | undefined {
    const t = this.tokens[this.i];
    if (!t) {
      if (!optional && !this.damaged) this.diags.error(this.at, 'missing-argument', `${this.name} needs ${what}`);
      return undefined;
    }
    this.i++;
    return t.kind === 'variable' ? this.substitute(t) : t;
  }

  private substitute(t: Token & { kind: 'variable' }): Token | undefined {
    const value = Object.hasOwn(this.variables, t.name) ? this.variables[t.name] : undefined;
    if (value === undefined) {
      this.diags.error(t, 'unbound-variable', `{{${t.name}}} has no value, and ${this.name} cannot render without one; pass it in variables`);
      return undefined;
    }
    const { read, found } = lexValue(this.variables, t.name, value);
    for (const d of found) this.diags.error(t, d.code, () => `{{${t.name}}} = ${excerpt(JSON.stringify(value))}: ${d.message}`);
    if (read.length !== 1) {
      if (found.length === 0) this.diags.error(t, 'bad-variable-value', () => `{{${t.name}}} = ${excerpt(JSON.stringify(value))} is not one value for ${this.name}`);
      return undefined;
    }
    return { ...read[0]!, line: t.line, column: t.column };
  }

  private wrong(t: Token, what: string): undefined {
    this.diags.error(t, 'bad-argument', `${this.name} needs ${what}, not ${describeToken(t)}`);
    return undefined;
  }

  /** A string literal, or a bare variable standing for one. */
  text(what = 'a string in double quotes', optional = false): Text | undefined {
    const raw = this.tokens[this.i];
    if (raw?.kind === 'variable') {
      this.i++;
      return { parts: [{ variable: raw.name, at: { line: raw.line, column: raw.column } }], at: raw };
    }
    const t = this.take(what, optional);
    if (!t) return undefined;
    return t.kind === 'string' ? { parts: t.parts, at: { line: t.line, column: t.column } } : this.wrong(t, what);
  }

  duration(what: string, optional = false): { seconds: number; at: Position } | undefined {
    const t = this.take(what, optional);
    if (!t) return undefined;
    if (t.kind === 'number') {
      this.diags.error(t, 'missing-unit', `${t.raw} needs a unit: ${t.raw}s or ${t.raw}ms`);
      return undefined;
    }
    return t.kind === 'duration' ? { seconds: t.seconds, at: t } : this.wrong(t, what);
  }

  number(what: string, min: number, max: number): number | undefined {
    const t = this.take(what, false);
    if (!t) return undefined;
    if (t.kind !== 'number') return this.wrong(t, what);
    if (t.value < min || t.value > max) {
      this.diags.error(t, 'out-of-range', `${this.name} ${t.raw} is out of range; use ${min} to ${max}`);
      return undefined;
    }
    return t.value;
  }

  /** One of a fixed set of words (or numbers, or ratios), with a "did you mean" for near misses. */
  oneOf<T extends string | number>(what: string, allowed: readonly T[]): { value: T; at: Position } | undefined {
    const t = this.take(what, false);
    if (!t) return undefined;
    const raw = t.kind === 'word' ? t.value : t.kind === 'number' ? t.raw : t.kind === 'ratio' ? t.value : undefined;
    const found = allowed.find((a) => String(a) === raw);
    if (found !== undefined) return { value: found, at: t };
    const list = allowed.join(', ');
    this.diags.error(t, 'bad-value', () => `${this.name} ${describeToken(t)} is not allowed; use one of ${list}${t.kind === 'word' ? hint(t.value, allowed.map(String)) : ''}`);
    return undefined;
  }

  /** The raw next token, for directives that accept several kinds of value. */
  any(what: string): Token | undefined {
    return this.take(what, false);
  }

  asset(what = 'an asset reference asset:<id>'): { assetId: string; at: Position } | undefined {
    const t = this.take(what, false);
    if (!t) return undefined;
    return t.kind === 'asset' ? { assetId: t.id, at: t } : this.wrong(t, what);
  }

  /** An asset or a long-form source: what a `video` plays. */
  media(what: string): { kind: 'asset' | 'source'; id: string; at: Position } | undefined {
    const t = this.take(what, false);
    if (!t) return undefined;
    return t.kind === 'asset' || t.kind === 'source' ? { kind: t.kind, id: t.id, at: t } : this.wrong(t, what);
  }

  /**
   * Trailing `key value` options (or bare flags): each key once, in any order. `read` returns
   * false for an unknown key.
   */
  options(keys: readonly string[], read: (key: string, reader: ArgReader) => void): void {
    const seen = new Set<string>();
    while (this.more) {
      const t = this.tokens[this.i]!;
      if (t.kind !== 'word' || !keys.includes(t.value)) {
        this.i++;
        this.diags.error(t, 'bad-option', () => `${this.name} has no option ${describeToken(t)}; its options are ${keys.join(', ')}${t.kind === 'word' ? hint(t.value, keys) : ''}`);
        continue;
      }
      this.i++;
      if (seen.has(t.value)) this.diags.warn(t, 'repeated-option', `${t.value} is given twice; the last one counts`);
      seen.add(t.value);
      read(t.value, this);
    }
  }

  /** Reports arguments left over. */
  done(): void {
    const extra = this.tokens[this.i];
    if (extra) this.diags.error(extra, 'extra-argument', `${this.name} takes no more arguments; remove ${describeToken(extra)}`);
    this.i = this.tokens.length;
  }
}

/**
 * A variable's value read as tokens, once per compile: a script may use a 10,000-character value on
 * every line, and lexing it at each use made the compile cost uses times length.
 */
const lexed = new WeakMap<Variables, Map<string, { read: Token[]; found: Diagnostic[] }>>();
function lexValue(variables: Variables, name: string, value: string | number | boolean): { read: Token[]; found: Diagnostic[] } {
  let values = lexed.get(variables);
  if (!values) lexed.set(variables, (values = new Map()));
  let hit = values.get(name);
  if (!hit) {
    const inner = new Diagnostics();
    hit = { read: tokenize(String(value), inner).flatMap((l) => l.tokens), found: inner.list };
    values.set(name, hit);
  }
  return hit;
}

/** Fills `{{name}}` placeholders; returns the text and the names that had no value. */
export function fillText(parts: StringPart[], variables: Variables): { text: string; unbound: { name: string; at: Position }[] } {
  let text = '';
  const unbound: { name: string; at: Position }[] = [];
  for (const p of parts) {
    if ('text' in p) text += p.text;
    else if (Object.hasOwn(variables, p.variable)) text += String(variables[p.variable]);
    else {
      unbound.push({ name: p.variable, at: p.at });
      text += `{{${p.variable}}}`;
    }
  }
  return { text, unbound };
}
