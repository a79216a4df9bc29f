import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { packageRoot } from '../../../shared/package-root.js';
import { descendantsOf } from '../../../shared/proc.js';
import { cmdline } from '../../helpers/procfs.js';

// Tiny projects for the real language servers (typescript-language-server + TypeScript 5.9, and
// pyright, both devDependencies), and the PATHs that find them or not. Each project has one
// deliberate type error on a known line; positions below are 1-based, as the tools take them.

/** The devDependencies' bins (typescript-language-server, pyright-langserver). */
export const SERVER_BIN_DIR = join(packageRoot(), 'node_modules', '.bin');

/** A PATH with this Node but without any node_modules/.bin (npm test adds its own). */
export function pathWithoutServers(): string {
  const kept = (process.env.PATH ?? '/usr/bin:/bin').split(delimiter).filter((d) => d !== '' && !d.includes('node_modules'));
  return [dirname(process.execPath), ...kept].join(delimiter);
}

/** A PATH that finds the real servers first. */
export function pathWithServers(): string {
  return [SERVER_BIN_DIR, pathWithoutServers()].join(delimiter);
}

export const TS = {
  /** `add` in `const total: number = add(1, 2);` */
  addCall: { line: 2, character: 23 },
  /** `add` in `export function add(...)` */
  addDeclaration: { line: 1, character: 17 },
  /** `const wrong: string = add(3, 4);` */
  errorLine: 3,
};

/** A TypeScript project: `<root>/ts/src/{math,main}.ts`. */
export function writeTypeScriptProject(root: string): { math: string; main: string } {
  const dir = join(root, 'ts');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true }, include: ['src'] }));
  const math = join(dir, 'src', 'math.ts');
  writeFileSync(math, 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport class Counter {\n  count = 0;\n  increment(): number {\n    this.count = add(this.count, 1);\n    return this.count;\n  }\n}\n');
  const main = join(dir, 'src', 'main.ts');
  writeFileSync(main, "import { add, Counter } from './math.js';\nconst total: number = add(1, 2);\nconst wrong: string = add(3, 4);\nexport const counter = new Counter();\nexport { total, wrong };\n");
  return { math, main };
}

export const PY = {
  /** `greet` in `message: str = greet("ada")` */
  greetCall: { line: 3, character: 16 },
  /** `greet` in `def greet(...)` */
  greetDeclaration: { line: 1, character: 5 },
  /** `count: int = greet("bob")` */
  errorLine: 4,
};

/** A Python project: `<root>/py/{lib,main}.py`. */
export function writePythonProject(root: string): { lib: string; main: string } {
  const dir = join(root, 'py');
  mkdirSync(dir, { recursive: true });
  const lib = join(dir, 'lib.py');
  writeFileSync(lib, 'def greet(name: str) -> str:\n    return "hello " + name\n\n\nclass Greeter:\n    def __init__(self, prefix: str) -> None:\n        self.prefix = prefix\n\n    def say(self, name: str) -> str:\n        return self.prefix + greet(name)\n');
  const main = join(dir, 'main.py');
  writeFileSync(main, 'from lib import Greeter, greet\n\nmessage: str = greet("ada")\ncount: int = greet("bob")\ng = Greeter("hi ")\n');
  return { lib, main };
}

/** Pids of running language servers (by command line) among the descendants of `pid`. */
export function languageServersUnder(pid: number): number[] {
  return descendantsOf(pid).filter((p) => /typescript-language-server|pyright-langserver|tsserver/.test(cmdline(p)));
}

/** Every live process whose command line mentions `marker` (the test's own temp root). */
export function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => p !== process.pid && cmdline(p).includes(marker));
}

export function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}
