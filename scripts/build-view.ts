// Bundles the result view (supervisor/http/app-view/browser, browser code) into one self-contained HTML document,
// dist/view/result-view.html, which the gateway serves as its MCP App resource
// (supervisor/http/app-view/). Script and styles are inline: the resource declares a CSP with no
// allowed domain, so nothing may be fetched. Run by `npm run build` after tsc.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { packageRoot } from '../shared/package-root.js';

const root = packageRoot();
const source = join(root, 'supervisor', 'http', 'app-view', 'browser');

export async function buildView(outFile = join(root, 'dist', 'view', 'result-view.html')): Promise<string> {
  const result = await build({
    entryPoints: [join(source, 'main.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const js = result.outputFiles[0]!.text;
  // esbuild escapes `</script` inside strings; checked anyway, since the script is inlined.
  if (/<\/script/i.test(js)) throw new Error('the bundled view contains </script>');
  const css = readFileSync(join(source, 'view.css'), 'utf8');
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Hermes MCP gateway result</title>',
    `<style>${css}</style>`,
    '</head><body><main id="root" aria-live="polite"></main>',
    `<script>${js}</script>`,
    '</body></html>',
    '',
  ].join('\n');
  mkdirSync(join(outFile, '..'), { recursive: true });
  // Written beside and renamed: a gateway reading the view while it is rebuilt sees one whole file.
  const partial = `${outFile}.${process.pid}.partial`;
  writeFileSync(partial, html);
  renameSync(partial, outFile);
  return outFile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await buildView();
  console.log(`view: ${out}`);
}
