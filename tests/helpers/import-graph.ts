import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/** Repository paths (relative to `root`) to the files each file imports. */
export type ImportGraph = Map<string, string[]>;

/** The `.ts` sources (declaration files left out) under `dirs` of `root`, as repository paths. */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => join(dir, f)),
  );
}

/**
 * The import graph of `files`: for each, the files among `known` its relative specifiers name.
 * Imports are read by TypeScript's own pre-processor (static, dynamic and type-only imports alike).
 */
export function importGraph(root: string, files: readonly string[], known: ReadonlySet<string> = new Set(files)): ImportGraph {
  return new Map(files.map((file) => [file, importsOf(root, file, known)]));
}

function importsOf(root: string, file: string, known: ReadonlySet<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  const out: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = normalize(join(dirname(file), fileName)).replace(/\.js$/, '.ts');
    if (known.has(target)) out.push(target);
  }
  return out;
}
