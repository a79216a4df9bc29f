import { after } from 'node:test';
import { recordDuration } from '../../scripts/test-durations.js';

// Loaded into every test file by scripts/run-tests.ts (`node --import`, which node's runner passes
// on to each file it starts), instead of node's
// --test-force-exit: that flag ends each file with process.exit() the moment its last test ends,
// and results still on their way through the file's pipe to the runner are lost with it
// (nodejs/node#64833: Node 20 and 22 counted 904 and 909 tests where 24 counted 917, and passed).
// A file now ends on its own once nothing is left open. One still alive LEAK_GRACE_MS after its
// tests ended (its own after hooks, which run after this one, included) has leaked a handle: it
// fails, naming what is still open, instead of hanging the run.
//
// Only in a test file: the runner sets NODE_TEST_CONTEXT for the files it starts, and the pass
// process that runs them (scripts/test-pass.ts) is started with the same --import, where an after
// hook would make a test run of its own.
//
// With HMCP_TEST_DURATIONS naming a file, each test file appends its own running time there when it
// exits, one JSON line (run-tests orders the next run's files by them: scripts/test-durations.ts).

const LEAK_GRACE_MS = 60_000;

if (process.env.NODE_TEST_CONTEXT !== undefined) {
  after(() => {
    // Unref'd: it fires only if something else keeps the process alive that long.
    setTimeout(() => {
      const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
      process.stderr.write(`${process.argv[1]}: still running ${LEAK_GRACE_MS / 1000} s after its last test, held open by: ${open.join(', ')}\n`);
      process.exit(1);
    }, LEAK_GRACE_MS).unref();
  });
  if (process.env.HMCP_TEST_DURATIONS) process.on('exit', () => recordDuration(process.argv[1]!, performance.now()));
}
