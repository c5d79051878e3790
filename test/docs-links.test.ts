import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs are read without the code beside them: every relative link, every anchor and every
 * repository path named in backticks must lead somewhere, so a moved file or a renamed heading
 * cannot leave a reader at a dead end.
 */
const root = path.resolve(import.meta.dirname, '..');

const markdownUnder = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
  );

const pages = ['README.md', ...markdownUnder('docs')];

/** Top-level folders of the repository: a backticked path starting with one of these names a file. */
const repoFolders = ['api', 'app', 'bench', 'docs', 'domain', 'infra', 'pipelines', 'schemas', 'services', 'studio', 'test', '.ci'];

/** Markdown without its fenced code blocks, whose contents are commands and output, not references. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (page: string) =>
  new Set(
    prose(readFileSync(path.join(root, page), 'utf8'))
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => anchorOf(l.replace(/^#+ /, ''))),
  );

/** Relative link targets of a page: `[text](target)`, without web addresses. */
const linksOf = (text: string) =>
  [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));

/** Backticked repository paths of a page (placeholders and globs such as `<name>` or `*.avsc` skipped). */
const pathsOf = (text: string) =>
  [...prose(text).matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!.replace(/:\d+$/, ''))
    .filter((p) => p.includes('/') && repoFolders.includes(p.split('/')[0]!) && !/[<>{}*$]/.test(p));

/** Every dead reference of one page, as `target (why)`. */
function deadReferences(page: string): string[] {
  const text = readFileSync(path.join(root, page), 'utf8');
  const dir = path.dirname(page);
  const dead: string[] = [];
  for (const link of linksOf(text)) {
    const [file, anchor] = link.split('#') as [string, string | undefined];
    const target = file === '' ? page : path.join(dir, file);
    if (!existsSync(path.join(root, target))) dead.push(`${link} (no file ${target})`);
    else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor)) dead.push(`${link} (no heading #${anchor} in ${target})`);
  }
  for (const named of pathsOf(text)) if (!existsSync(path.join(root, named))) dead.push(`\`${named}\` (no such path)`);
  return dead;
}

describe('docs links', () => {
  it('finds the pages it checks', () => {
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(5);
  });

  it.each(pages)('%s: every relative link, anchor and named repository path exists', (page) => {
    expect(deadReferences(page)).toEqual([]);
  });

  it('README is a front page, under 300 lines', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(300);
  });

  it('no page points to a document outside the repository', () => {
    const outside = pages.filter((p) => /CONTRACTS\.md|Document \d|shared\/spec/.test(readFileSync(path.join(root, p), 'utf8')));
    expect(outside).toEqual([]);
  });
});
