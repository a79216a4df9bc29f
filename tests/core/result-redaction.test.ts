import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commandOutput, normalizeResult, redactOutcome } from '../../supervisor/core/result.js';

// The pipeline's redaction step: a tool's result redacted once, in the mode its definition
// declares (ToolDefinition.redaction), from the facts its handler states (whose output a text is,
// whether a file is secret-bearing); normalizeResult then leaves it. Values are assembled from
// pieces so this file holds no literal a secret scanner would flag; none is a real credential.

const OPAQUE = 'Zq8wX2vB7nM4' + 'kL9pR3tY';
const DUMP = `API_KEY=${OPAQUE}\nready`;
const CAP = { maxChars: 65_536 };
/** A Hermes home that need not exist: only its path is judged. */
const HOME = '/nonexistent-hmcp-result/hermes-home';

describe('redactOutcome', () => {
  test("command-output: each output as redact_terminal_output shows it for its own command, everything else as code", () => {
    const run = `API_KEY=${OPAQUE} ./run`;
    const outcome = redactOutcome('command-output', {
      structured: {
        processes: [
          { command: 'env', output_preview: commandOutput(DUMP, 'env') },
          { command: run, output_preview: commandOutput(DUMP, run) },
        ],
      },
    });
    assert.deepEqual(outcome.structured, {
      processes: [
        // An environment dump gets the ENV pass.
        { command: 'env', output_preview: 'API_KEY=***\nready' },
        // Any other command's output, and a command itself, are code: the assignment stays.
        { command: run, output_preview: DUMP },
      ],
    });
    // Marked, so the normaliser does not redact it again in the default mode (through the pool hop too).
    for (const o of [outcome, structuredClone(outcome)]) assert.deepEqual(normalizeResult(o, CAP).structuredContent, outcome.structured);
  });

  test('command-output: an empty output is the empty string itself, with nothing to redact', () => {
    assert.equal(commandOutput('', 'env'), '');
    assert.deepEqual(redactOutcome('command-output', { structured: { output: commandOutput('', 'env'), exit_code: 0 } }).structured, { output: '', exit_code: 0 });
  });

  test('command-output: a command that reads a secret-bearing file has its whole output redacted; pytest and exception lines get the repr pass', () => {
    const env = `API_KEY=${OPAQUE}\nMAX_TOKENS=100`;
    const outcome = redactOutcome('command-output', {
      structured: {
        reads: ['cat .env', 'grep -n TOKEN ~/.bashrc', 'sed -n 1,5p ~/.hermes/config.yaml', 'cat notes.txt'].map((command) => ({ command, output: commandOutput(env, command) })),
        failure: commandOutput(`E       assert {'api_key': '${OPAQUE}'} == {}\ncfg = {'api_key': '${OPAQUE}'}`, 'pytest -q'),
        // A relative config.yaml is Hermes' when the command ran in the Hermes home, a project's elsewhere.
        inHome: commandOutput(env, 'cat config.yaml', { hermesHome: HOME, cwd: HOME }),
        inProject: commandOutput(env, 'cat config.yaml', { hermesHome: HOME, cwd: '/nonexistent-hmcp-result/project' }),
      },
    });
    assert.deepEqual(outcome.structured, {
      reads: [
        { command: 'cat .env', output: 'API_KEY=***\nMAX_TOKENS=***' },
        { command: 'grep -n TOKEN ~/.bashrc', output: 'API_KEY=***\nMAX_TOKENS=***' },
        { command: 'sed -n 1,5p ~/.hermes/config.yaml', output: 'API_KEY=***\nMAX_TOKENS=***' },
        { command: 'cat notes.txt', output: env },
      ],
      // Source keeps its fixtures; pytest's introspection line does not.
      failure: `E       assert {'api_key': '***'} == {}\ncfg = {'api_key': '${OPAQUE}'}`,
      inHome: 'API_KEY=***\nMAX_TOKENS=***',
      inProject: env,
    });
  });

  test('file-read: the assignment passes (with the sentinel) only for a secret-bearing file; the fact is not passed on', () => {
    const rc = `export SERVICE_TOKEN=${OPAQUE}\nexport EDITOR=vim`;
    const secret = redactOutcome('file-read', { structured: { content: rc }, secretFile: true });
    assert.deepEqual(secret, { structured: { content: 'export SERVICE_TOKEN=«redacted-secret»\nexport EDITOR=vim' }, redacted: 'file-read' });
    const plain = redactOutcome('file-read', { structured: { content: rc } });
    assert.deepEqual(plain.structured, { content: rc });
    assert.deepEqual(normalizeResult(plain, CAP).structuredContent, { content: rc });
  });

  test('file-search: a match of a secret-bearing file gets the assignment passes, other matches and fields do not; the fact is not passed on', () => {
    const line = `export SERVICE_TOKEN=${OPAQUE}`;
    const outcome = redactOutcome('file-search', {
      structured: { matches: [{ path: '.bashrc', line: 1, content: line }, { path: 'src/env.sh', line: 1, content: line }], total_count: 2 },
      secretFiles: ['.bashrc'],
    });
    assert.deepEqual(outcome, {
      structured: {
        matches: [{ path: '.bashrc', line: 1, content: 'export SERVICE_TOKEN=«redacted-secret»' }, { path: 'src/env.sh', line: 1, content: line }],
        total_count: 2,
      },
      redacted: 'file-search',
    });
  });

  test('code-file: every string as code, once (an assignment stays)', () => {
    const outcome = redactOutcome('code-file', { structured: { output: DUMP } });
    assert.deepEqual(normalizeResult(outcome, CAP).structuredContent, { output: DUMP });
  });

  test('output (the default): left to the normaliser, which redacts in the default mode', () => {
    const outcome = redactOutcome(undefined, { structured: { output: DUMP } });
    assert.deepEqual(outcome, { structured: { output: DUMP } });
    assert.deepEqual(normalizeResult(outcome, CAP).structuredContent, { output: 'API_KEY=***\nready' });
  });
});
