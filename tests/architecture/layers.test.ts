import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { packageRoot } from '../../shared/package-root.js';

// The layers, bottom to top (ARCHITECTURE.md draws them): each product file imports only files of
// its own layer or the layers below it, and no import cycle exists anywhere in the product code.
// Imports are read by TypeScript's own pre-processor (static, dynamic and type-only imports alike).
//
//   shared/                 what the supervisor and the worker processes both use
//   supervisor/platform/    configuration, telemetry, health, worker spawning, thread pool
//   supervisor/core/        the tool pipeline: catalog, dispatch, owners, result normalisation
//   supervisor/tools/       one folder per tool family (a family may use another family)
//   supervisor/http/        the HTTP server, MCP endpoint, edge, authentication, bridge profile
//   supervisor/compose/     the composition root: every adapter and the gateway, handed to http/
//   supervisor/doctor/      `hermes-mcp-gateway doctor`: composes the gateway to check it
//   bin/                    the four programs: argument parsing, then a call into the layers
//
// workers/ is a separate process: it imports shared/ and itself, nothing of the supervisor.

const LAYERS = ['shared', 'supervisor/platform', 'supervisor/core', 'supervisor/tools', 'supervisor/http', 'supervisor/compose', 'supervisor/doctor', 'bin'] as const;
const PRODUCT_ROOTS = ['shared', 'supervisor', 'workers', 'bin'];

function productFiles(): string[] {
  const root = packageRoot();
  return PRODUCT_ROOTS.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f)),
  );
}

/** The product files `file` imports (relative specifiers that name one), as repository paths. */
function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(join(packageRoot(), file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const out: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = normalize(join(dirname(file), fileName)).replace(/\.js$/, '.ts');
    if (known.has(target)) out.push(target);
  }
  return out;
}

/** The layer index of a file, or 'workers'. */
function layerOf(file: string): number | 'workers' {
  if (file.startsWith('workers/')) return 'workers';
  const index = LAYERS.findIndex((layer) => file.startsWith(layer + '/'));
  if (index < 0) throw new Error(`${file} is in no layer: put it in one of ${LAYERS.join(', ')}`);
  return index;
}

const files = productFiles();
const known = new Set(files);
const graph = new Map(files.map((f) => [f, importsOf(f, known)]));

test('the product tree is there to check, and every file is in a layer', () => {
  assert.ok(files.length > 200 && graph.get(join('bin', 'gateway.ts'))!.length > 0, 'the sources and their imports are read');
  for (const f of files) layerOf(f);
});

test('each layer imports only itself and the layers below it; workers import only shared/', () => {
  const upward: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(from);
    for (const to of targets) {
      const theirs = layerOf(to);
      const allowed = own === 'workers' ? theirs === 'workers' || theirs === 0 : theirs !== 'workers' && theirs <= own;
      if (!allowed) upward.push(`${from} -> ${to}`);
    }
  }
  assert.deepEqual(upward, [], 'move the shared piece down a layer, or pass it in from the layer above');
});

test('supervisor/tools/ holds only the families: what composes them is supervisor/compose/', () => {
  assert.deepEqual(files.filter((f) => dirname(f) === join('supervisor', 'tools')), []);
});

test('no import cycles', () => {
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  assert.deepEqual(cycles.map((c) => c.map((f) => relative('.', f)).join(' <-> ')), []);
});
