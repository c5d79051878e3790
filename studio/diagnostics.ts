import { linter, type Diagnostic } from '@codemirror/lint';
import { StateEffect } from '@codemirror/state';
import type { Text } from '@codemirror/state';
import type { RenderGraph } from '../domain/video/render-graph.js';
import { api, ApiError, currentCredential } from './api.js';
import { byId, fill, h } from './dom.js';
import { shared, update } from './state.js';

/**
 * Diagnostics as the user types: the script goes to POST /api/compile (debounced by the linter),
 * and each finding is marked at its line and column, listed under the editor, and announced. A
 * script that compiles hands its render graph to the timeline.
 */

interface Finding {
  level: 'error' | 'warning';
  message: string;
  line: number;
  column: number;
}

const DEBOUNCE_MS = 400;

/** Asks for the script to be checked again though it has not changed (after signing in). */
export const recheck = StateEffect.define<null>();

/** From the finding's column to the end of its token (the whole line when it points past it). */
function range(doc: Text, f: Finding): { from: number; to: number } {
  const line = doc.line(Math.min(Math.max(1, f.line), doc.lines));
  const from = Math.min(line.to, line.from + Math.max(0, f.column - 1));
  let to = from;
  while (to < line.to && !/\s/.test(doc.sliceString(to, to + 1))) to++;
  return from === to ? { from: line.from, to: line.to } : { from, to };
}

function show(findings: Finding[], failure?: string): void {
  const list = byId('diagnostics');
  const errors = findings.filter((f) => f.level === 'error').length;
  byId('diagnostics-summary').textContent = failure ?? (findings.length === 0 ? 'No problems' : `${errors} error${errors === 1 ? '' : 's'}, ${findings.length - errors} warning${findings.length - errors === 1 ? '' : 's'}`);
  fill(list, ...findings.map((f) => h('li', { class: `finding ${f.level}`, 'data-line': f.line }, h('span', { class: 'where' }, `Line ${f.line}, column ${f.column}`), ` ${f.level}: ${f.message}`)));
}

export const compileLinter = linter(
  async (view) => {
    if (!currentCredential()) return [];
    const source = view.state.doc.toString();
    if (!source.trim()) {
      show([]);
      return [];
    }
    let findings: Finding[];
    try {
      const { body } = await api<{ renderGraph: RenderGraph; diagnostics: Finding[] }>('POST', '/api/compile', { json: { source, variables: shared.variables, preview: true } });
      findings = body.diagnostics;
      update('stale', false);
      update('compiledSource', source);
      update('graph', body.renderGraph);
    } catch (err) {
      if (!(err instanceof ApiError && err.body.error === 'compile_failed')) {
        show([], `Could not compile: ${err instanceof Error ? err.message : String(err)}`);
        return [];
      }
      findings = err.body.diagnostics ?? [];
      update('stale', true);
    }
    // The document may have changed while the answer travelled: findings map onto the text sent.
    if (view.state.doc.toString() !== source) return [];
    show(findings);
    return findings.map((f): Diagnostic => ({ ...range(view.state.doc, f), severity: f.level, message: f.message, source: `line ${f.line}, column ${f.column}` }));
  },
  { delay: DEBOUNCE_MS, needsRefresh: (u) => u.transactions.some((tr) => tr.effects.some((e) => e.is(recheck))) },
);
