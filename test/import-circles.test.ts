import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The floors' lint rule keeps imports pointing down between folders; within a folder two modules
// may still import each other, which makes load order matter. This walks every relative import
// (type-only ones too: they tie the modules' meanings the same way) and names each circle.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['app', 'api', 'pipelines', 'schemas', 'infra', 'domain', 'services'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"](\.[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

function circles(): string[] {
  const files = [path.join(root, 'main.ts'), ...FOLDERS.flatMap((f) => sources(path.join(root, f)))];
  const edges = new Map(files.map((f) => [f, [...readFileSync(f, 'utf8').matchAll(IMPORT)].map((m) => path.resolve(path.dirname(f), m[1]!).replace(/\.js$/, '.ts'))]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const to of edges.get(f) ?? []) {
      if (state.get(to) === 'open') found.push([...stack.slice(stack.indexOf(to)), to].map((p) => path.relative(root, p)).join(' -> '));
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

describe('imports', () => {
  it('form no circle', () => {
    expect(circles()).toEqual([]);
  });
});
