import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { constants as osConstants } from 'node:os';
import { pipeline } from 'node:stream/promises';

// One pass of the test suite (run-tests.ts starts one per Hermes pin, with HERMES_TEST_PIN set):
// node's test runner over the files named, started in the order named (node's CLI would sort them
// by name), at most --concurrency at a time, each in its own process as `node --test` runs them.
// The files get this process's --import (the exit watchdog), as the CLI's get its own.
//
//   node --import=<exit-watchdog> dist/scripts/test-pass.js --concurrency=4 --reporter=spec FILE…
//
// Exit status: 0 when every test passed, 1 when one failed (a todo test's failure does not count),
// 128 + n when stopped by signal n (the files still running are stopped first).

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const concurrency = Number(option('concurrency') ?? '1');
const files = args.filter((a) => !a.startsWith('--'));
if (!Number.isInteger(concurrency) || concurrency < 1 || files.length === 0) {
  process.stderr.write('usage: test-pass.js --concurrency=N [--reporter=spec|tap] FILE…\n');
  process.exit(2);
}

const controller = new AbortController();
let stoppedBy: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    stoppedBy ??= signal;
    controller.abort();
  });
}

let failed = 0;
const stream = run({ files, concurrency, signal: controller.signal });
stream.on('test:fail', (data: { todo?: string | boolean }) => {
  if (!data.todo) failed++;
});
const report = option('reporter') === 'tap' ? stream.compose<NodeJS.ReadableStream>(tap) : stream.compose<NodeJS.ReadableStream>(new spec());
await pipeline(report, process.stdout);
process.exitCode = stoppedBy ? 128 + (osConstants.signals[stoppedBy] ?? 0) : failed > 0 ? 1 : 0;
