import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { handleBinArguments } from '../../bin/arguments.js';
import { packageVersion } from '../../shared/package-root.js';

// The serving bins' arguments: --help, --version and (where accepted) --log-format; anything else is
// a usage error with exit code 2. handleBinArguments writes to stdout/stderr and sets
// process.exitCode, so each call here captures both and the exit code is put back afterwards.

const USAGE = 'usage: demo [--help | --version]\n';

interface Outcome {
  result: ReturnType<typeof handleBinArguments>;
  stdout: string;
  stderr: string;
  exitCode: typeof process.exitCode;
}

function run(args: string[], accepts?: { logFormat?: boolean }): Outcome {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => err.push(chunk) > 0) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    const result = handleBinArguments('demo', USAGE, args, accepts);
    return { result, stdout: out.join(''), stderr: err.join(''), exitCode: process.exitCode };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

test('no arguments: serve, with nothing set and nothing written', () => {
  assert.deepEqual(run([]), { result: {}, stdout: '', stderr: '', exitCode: undefined });
  assert.deepEqual(run([], { logFormat: true }), { result: {}, stdout: '', stderr: '', exitCode: undefined });
});

test('--help and -h print the usage and exit 0 without serving', () => {
  for (const flag of ['--help', '-h']) assert.deepEqual(run([flag]), { result: false, stdout: USAGE, stderr: '', exitCode: 0 });
});

test('--version and -v print the bin and the package version', () => {
  for (const flag of ['--version', '-v']) {
    assert.deepEqual(run([flag]), { result: false, stdout: `demo ${packageVersion()}\n`, stderr: '', exitCode: 0 });
  }
});

test('any other argument is a usage error naming it, with exit code 2', () => {
  assert.deepEqual(run(['--port', '3000']), {
    result: false,
    stdout: '',
    stderr: `demo: unexpected argument "--port"; settings come from the environment\n${USAGE}`,
    exitCode: 2,
  });
  // --help beside another argument is not honoured; the stray one is named, not the --help.
  assert.equal(run(['--help', '--verbose']).stderr.split('\n')[0], 'demo: unexpected argument "--verbose"; settings come from the environment');
  assert.equal(run(['--help', '-v']).stderr.split('\n')[0], 'demo: unexpected argument "--help"; settings come from the environment');
  assert.equal(run(['--log-format', 'json']).stderr.split('\n')[0], 'demo: unexpected argument "--log-format"; settings come from the environment', 'only where accepted');
});

test('--log-format takes json or pretty, as the next argument or inline', () => {
  assert.deepEqual(run(['--log-format', 'pretty'], { logFormat: true }), { result: { logFormat: 'pretty' }, stdout: '', stderr: '', exitCode: undefined });
  assert.deepEqual(run(['--log-format=json'], { logFormat: true }).result, { logFormat: 'json' });
  assert.deepEqual(run(['--log-format=json', '--log-format', 'pretty'], { logFormat: true }).result, { logFormat: 'pretty' }, 'the last one wins');
});

test('a bad or missing --log-format value is a usage error naming the choices', () => {
  const bad = run(['--log-format', 'xml'], { logFormat: true });
  assert.deepEqual(bad, { result: false, stdout: '', stderr: `demo: --log-format must be one of json, pretty, got "xml"\n${USAGE}`, exitCode: 2 });
  assert.equal(run(['--log-format'], { logFormat: true }).stderr.split('\n')[0], 'demo: --log-format must be one of json, pretty, got ""');
  assert.equal(run(['--log-format='], { logFormat: true }).stderr.split('\n')[0], 'demo: --log-format must be one of json, pretty, got ""');
  assert.equal(run(['--log-format=json', '--help'], { logFormat: true }).stderr.split('\n')[0], 'demo: unexpected argument "--help"; settings come from the environment');
});
