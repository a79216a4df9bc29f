import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../shared/package-root.js';

// Which product files have a unit test at the mirrored path: the test of `supervisor/X/Y.ts` is
// `tests/X/Y.test.ts`, that of `shared/a.ts` is `tests/shared/a.test.ts` (and so for workers/ and
// bin/).
//
//   node dist/scripts/mirror-report.js        the count and the share of product files with one
//   node dist/scripts/mirror-report.js -v     and the product files without one
//
// The view's browser sources (supervisor/http/app-view/browser/) are left out: they compile with the
// DOM library into the view's bundle only, not into dist/, so a Node test cannot import them; the
// view's tests run the bundle in a real browser instead.

const PRODUCT_ROOTS = ['shared', 'supervisor', 'workers', 'bin'] as const;
const BROWSER_BUNDLE = join('supervisor', 'http', 'app-view', 'browser');

/** The product's TypeScript files a Node unit test can import, as repository paths, sorted. */
export function productFiles(root: string): string[] {
  return PRODUCT_ROOTS.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => join(dir, f)),
  )
    .filter((f) => !f.startsWith(BROWSER_BUNDLE + '/'))
    .sort();
}

/** The mirrored unit test's path of a product file (repository paths). */
export function mirroredTest(file: string): string {
  return join('tests', file.replace(/^supervisor\//, '').replace(/\.ts$/, '.test.ts'));
}

export interface MirrorReport {
  files: string[];
  /** The product files without a mirrored test. */
  missing: string[];
}

export function mirrorReport(root: string): MirrorReport {
  const files = productFiles(root);
  return { files, missing: files.filter((f) => !existsSync(join(root, mirroredTest(f)))) };
}

/** "N of M product files have a mirrored unit test (P%)". */
export function summary({ files, missing }: MirrorReport): string {
  const covered = files.length - missing.length;
  const percent = files.length === 0 ? 0 : Math.round((100 * covered) / files.length);
  return `${covered} of ${files.length} product files have a mirrored unit test (${percent}%)`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = mirrorReport(packageRoot());
  process.stdout.write(summary(report) + '\n');
  if (process.argv.includes('-v')) for (const f of report.missing) process.stdout.write(`${f}  (${mirroredTest(f)})\n`);
}
