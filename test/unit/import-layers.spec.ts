import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/*
 * The dependency rule of docs/architecture.md ("Dependencies"): imports point
 * one way, from a higher folder of src/ to a lower one (or within a level),
 * never up. Every import and re-export of every file is read with the
 * TypeScript compiler's own pre-processor (type-only imports count too).
 */

const SRC = resolve(__dirname, '../../src');

/** Highest first; folders on one line are peers and may import each other. */
const LEVELS: ReadonlyArray<readonly string[]> = [
  ['ical', 'webhooks', 'imports', 'idempotency', 'index', 'health', 'batch'],
  ['changes'],
  ['events'],
  ['venues', 'organizers', 'terms', 'categories', 'tags'],
  ['posts'],
  ['writes', 'common', 'database', 'auth', 'i18n', 'config', 'metrics'],
];

/**
 * Files whose level is not their folder's. The entity list is the schema as a
 * whole, composed like app.module.ts, so it is outside the order (as the
 * files at the root of src/ are).
 */
const FILE_LEVELS: Readonly<Record<string, string>> = {
  'database/entities.ts': 'root',
};

/** An entity and its translation entity point at each other (TypeORM relations). */
function isTranslationPair(from: string, to: string): boolean {
  const pair = (a: string, b: string) => a.replace(/\.entity\.ts$/, '-translation.entity.ts') === b;
  return pair(from, to) || pair(to, from);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The level of a file of src/ (by path relative to src/), or undefined outside the order. */
function levelOf(file: string): number | undefined {
  const folder = FILE_LEVELS[file] ?? (file.includes('/') ? file.split('/')[0] : 'root');
  const level = LEVELS.findIndex((folders) => folders.includes(folder));
  return level < 0 ? undefined : level;
}

/** The src/-relative targets of a file's relative imports, as `import`, `export … from` and `import()` name them. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => {
      const target = relative(SRC, resolve(SRC, dirname(file), name));
      return target.endsWith('.ts') ? target : `${target}.ts`;
    });
}

describe('import layers (docs/architecture.md, "Dependencies")', () => {
  const files = sourceFiles(SRC).map((path) => relative(SRC, path));

  it('places every folder of src/ on a level', () => {
    const folders = new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]));
    const unplaced = [...folders].filter((folder) => !LEVELS.some((l) => l.includes(folder)));
    expect(unplaced).toEqual([]);
  });

  it('has no import from a lower folder to a higher one, except entity <-> translation pairs', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = levelOf(file);
      if (from === undefined) continue;
      for (const target of importsOf(file)) {
        const to = levelOf(target);
        if (to === undefined || to >= from || isTranslationPair(file, target)) continue;
        upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('reads every form of import (the check itself)', () => {
    const text = [
      "import { a } from '../x/a';",
      "import type { B } from '../x/b';",
      "export { c } from './c';",
      "const d = import('../x/d');",
      "import {\n  e,\n  f,\n} from '../x/ef';",
    ].join('\n');
    const names = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    expect(names).toEqual(['../x/a', '../x/b', './c', '../x/d', '../x/ef']);
  });
});
