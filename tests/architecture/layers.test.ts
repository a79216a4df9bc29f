import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../shared/package-root.js';
import { importGraph, sourceFiles, type ImportGraph } from '../helpers/import-graph.js';

// The rules of the product's import graph, each a checker over a graph: the checkers run once on a
// small made-up graph holding one violation of their rule (so each is seen to report what it
// forbids, and nothing else), then on the repository's own graph.
//
// The layers, bottom to top (ARCHITECTURE.md draws them): each product file imports only files of
// its own layer or the layers below it, and no import cycle exists anywhere in the product code.
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
//
// Inside supervisor/tools/, a folder is a unit with one entry: an import that crosses into a folder
// below a family (supervisor/tools/<family>/<folder>/…) targets that folder's index.ts, and an import
// from outside a family targets the family's index.ts or the index.ts of one of its folders. So a
// nested folder is reached through each folder's index.ts in turn, and files inside one folder
// import each other freely. Redaction has one owner, the pipeline in supervisor/core: no file under
// supervisor/tools/ imports shared/redact.

const LAYERS = ['shared', 'supervisor/platform', 'supervisor/core', 'supervisor/tools', 'supervisor/http', 'supervisor/compose', 'supervisor/doctor', 'bin'] as const;
const TOOLS = 'supervisor/tools';

/** The layer index of a file, or 'workers'. */
function layerOf(file: string): number | 'workers' {
  if (file.startsWith('workers/')) return 'workers';
  const index = LAYERS.findIndex((layer) => file.startsWith(layer + '/'));
  if (index < 0) throw new Error(`${file} is in no layer: put it in one of ${LAYERS.join(', ')}`);
  return index;
}

const inside = (file: string, folder: string): boolean => file.startsWith(folder + '/');
const arrow = (from: string, to: string): string => `${from} -> ${to}`;

/** Imports of a layer above the importer's own, and imports by the workers of anything but shared/ and workers/. */
function upwardImports(graph: ImportGraph): string[] {
  const upward: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(from);
    for (const to of targets) {
      const theirs = layerOf(to);
      const allowed = own === 'workers' ? theirs === 'workers' || theirs === 0 : theirs !== 'workers' && theirs <= own;
      if (!allowed) upward.push(arrow(from, to));
    }
  }
  return upward;
}

/** Files directly in supervisor/tools/: the folder holds only the families (what composes them is supervisor/compose/). */
function looseToolFiles(graph: ImportGraph): string[] {
  return [...graph.keys()].filter((f) => inside(f, TOOLS) && familyOf(f) === undefined);
}

/** The import cycles, each as its files (sorted) joined by ' <-> '; a file importing itself is one. */
function importCycles(graph: ImportGraph): string[] {
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
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
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort().join(' <-> '));
    }
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return cycles;
}

/** supervisor/tools/<family> for a file inside a family's folder; undefined for any other file. */
function familyOf(file: string): string | undefined {
  if (!inside(file, TOOLS)) return undefined;
  const parts = file.slice(TOOLS.length + 1).split('/');
  return parts.length > 1 ? `${TOOLS}/${parts[0]}` : undefined;
}

/** The folders below `family` holding `file`, outermost first. */
function foldersBelow(family: string, file: string): string[] {
  const parts = file.slice(family.length + 1).split('/').slice(0, -1);
  return parts.map((_, i) => [family, ...parts.slice(0, i + 1)].join('/'));
}

/**
 * Imports that bypass a folder's entry: one crossing into a folder below a family must target that
 * folder's index.ts (so it crosses into one folder at most), and one from outside the family must
 * target an index.ts (the family's, or that of the one folder it crosses into).
 */
function entryBypasses(graph: ImportGraph): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const family = familyOf(to);
      if (family === undefined) continue;
      const entered = foldersBelow(family, to).filter((folder) => !inside(from, folder));
      const allowed =
        entered.length === 0 ? inside(from, family) || to === `${family}/index.ts` : entered.length === 1 && to === `${entered[0]}/index.ts`;
      if (!allowed) wrong.push(arrow(from, to));
    }
  }
  return wrong;
}

/** Imports of shared/redact (the module or its folder) by files under supervisor/tools/. */
function toolRedactions(graph: ImportGraph): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    if (!inside(from, TOOLS)) continue;
    for (const to of targets) if (to === 'shared/redact.ts' || inside(to, 'shared/redact')) wrong.push(arrow(from, to));
  }
  return wrong;
}

/** A graph from `from -> to` lines (every file named becomes a node). */
function graphOf(...edges: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const edge of edges) {
    const [from, to] = edge.split(' -> ') as [string, string];
    graph.set(from, [...(graph.get(from) ?? []), to]);
    if (!graph.has(to)) graph.set(to, []);
  }
  return graph;
}

test('made-up violation, upwardImports: a core file importing a family, a worker importing platform/', () => {
  assert.deepEqual(
    upwardImports(
      graphOf(
        'supervisor/core/a.ts -> shared/b.ts',
        'supervisor/core/a.ts -> supervisor/tools/files/index.ts',
        'workers/w.ts -> shared/b.ts',
        'workers/w.ts -> supervisor/platform/c.ts',
        'bin/x.ts -> supervisor/http/y.ts',
      ),
    ),
    ['supervisor/core/a.ts -> supervisor/tools/files/index.ts', 'workers/w.ts -> supervisor/platform/c.ts'],
  );
});

test('made-up violation, looseToolFiles: a composing file directly in supervisor/tools/', () => {
  assert.deepEqual(
    looseToolFiles(graphOf('supervisor/tools/native-adapter.ts -> supervisor/tools/files/index.ts', 'supervisor/tools/files/index.ts -> supervisor/core/a.ts')),
    ['supervisor/tools/native-adapter.ts'],
  );
});

test('made-up violation, importCycles: a three-file cycle and a file importing itself', () => {
  assert.deepEqual(importCycles(graphOf('shared/a.ts -> shared/b.ts', 'shared/b.ts -> shared/c.ts', 'shared/c.ts -> shared/a.ts', 'shared/d.ts -> shared/a.ts', 'shared/e.ts -> shared/e.ts')), [
    'shared/a.ts <-> shared/b.ts <-> shared/c.ts',
    'shared/e.ts',
  ]);
});

test('made-up violation, entryBypasses: past a folder entry, through two folders at once, into a family from outside', () => {
  assert.deepEqual(
    entryBypasses(
      graphOf(
        // allowed: inside one folder, into a folder's entry, a family's entry to its folders', from outside to an entry
        'supervisor/tools/files/patch/index.ts -> supervisor/tools/files/patch/apply.ts',
        'supervisor/tools/files/patch/apply.ts -> supervisor/tools/files/patch/v4a/index.ts',
        'supervisor/tools/files/patch/v4a/parse.ts -> supervisor/tools/files/fs-util.ts',
        'supervisor/tools/files/patch/v4a/parse.ts -> supervisor/tools/files/access/index.ts',
        'supervisor/tools/files/index.ts -> supervisor/tools/files/read/index.ts',
        'supervisor/tools/jobs/index.ts -> supervisor/tools/files/index.ts',
        'supervisor/tools/jobs/index.ts -> supervisor/tools/files/access/index.ts',
        'supervisor/http/server.ts -> supervisor/tools/files/index.ts',
        'supervisor/tools/native-adapter.ts -> supervisor/tools/guarded/cron/index.ts',
        // forbidden: past a folder's entry, through two folders at once, from outside to a family's inner file
        'supervisor/tools/files/index.ts -> supervisor/tools/files/read/text.ts',
        'supervisor/tools/files/index.ts -> supervisor/tools/files/patch/v4a/index.ts',
        'supervisor/tools/files/read/index.ts -> supervisor/tools/files/patch/v4a/parse.ts',
        'supervisor/tools/jobs/index.ts -> supervisor/tools/files/fs-util.ts',
        'supervisor/tools/jobs/runner.ts -> supervisor/tools/files/access/confine.ts',
        'supervisor/http/server.ts -> supervisor/tools/files/patch/v4a/index.ts',
      ),
    ),
    [
      'supervisor/tools/files/index.ts -> supervisor/tools/files/read/text.ts',
      'supervisor/tools/files/index.ts -> supervisor/tools/files/patch/v4a/index.ts',
      'supervisor/tools/files/read/index.ts -> supervisor/tools/files/patch/v4a/parse.ts',
      'supervisor/tools/jobs/index.ts -> supervisor/tools/files/fs-util.ts',
      'supervisor/http/server.ts -> supervisor/tools/files/patch/v4a/index.ts',
      'supervisor/tools/jobs/runner.ts -> supervisor/tools/files/access/confine.ts',
    ],
  );
});

test('made-up violation, toolRedactions: a family file and a composition file importing shared/redact', () => {
  assert.deepEqual(
    toolRedactions(
      graphOf(
        'supervisor/core/pipeline.ts -> shared/redact.ts',
        'supervisor/tools/memory/calls.ts -> shared/redact.ts',
        'supervisor/tools/native-adapter.ts -> shared/redact/mask.ts',
        'supervisor/tools/files/index.ts -> shared/redaction-free.ts',
      ),
    ),
    ['supervisor/tools/memory/calls.ts -> shared/redact.ts', 'supervisor/tools/native-adapter.ts -> shared/redact/mask.ts'],
  );
});

const files = sourceFiles(packageRoot(), ['shared', 'supervisor', 'workers', 'bin']);
const graph = importGraph(packageRoot(), files);

test('the product tree is there to check, and every file is in a layer', () => {
  assert.ok(files.length > 200 && graph.get(join('bin', 'gateway.ts'))!.length > 0, 'the sources and their imports are read');
  for (const f of files) layerOf(f);
});

test('each layer imports only itself and the layers below it; workers import only shared/', () => {
  assert.deepEqual(upwardImports(graph), [], 'move the shared piece down a layer, or pass it in from the layer above');
});

test('supervisor/tools/ holds only the families: what composes them is supervisor/compose/', () => {
  assert.deepEqual(looseToolFiles(graph), []);
});

test('no import cycles', () => {
  assert.deepEqual(importCycles(graph), []);
});

test('a folder under a tool family is entered through its index.ts', () => {
  assert.deepEqual(entryBypasses(graph), [], "import the folder's index.ts, and export from it what its importers need");
});

test('no file under supervisor/tools/ imports shared/redact', () => {
  assert.deepEqual(toolRedactions(graph), [], 'return the facts, and declare the redaction mode the pipeline applies to them');
});
