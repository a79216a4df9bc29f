import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskToken, redact, redactCommandOutput } from '../../shared/redact.js';
import { containsSecret } from '../../shared/secret-detect.js';

// What the gateway masks because SOME supported Hermes masks it: newer Hermes' (0.22) prefixes and
// passes on top of 0.19's, in every mode the gateway redacts in. The expected strings are those
// Hermes' own functions give where the versions agree; "union" marks where the gateway answers the
// less revealing of the two versions. Fixture secrets are assembled from pieces so this file holds
// no literal a secret scanner would flag; none is a real credential.

interface Modes {
  /** redact(text): tool output in general. */
  output: string;
  /** codeFile: source, execute_code's output. */
  code: string;
  /** fileRead: read_file / search_files content. */
  fileRead: string;
  /** fileRead + secretFile: a secret-bearing file's content. */
  secretFile: string;
  /** What `cat notes.txt` printed (code, with the diagnostic-line pass). */
  terminal: string;
  /** What `cat .env` printed (a secret-bearing file: the whole output as ordinary text). */
  terminalSecretFile: string;
  /** What `env` printed (an environment dump). */
  terminalEnvDump: string;
}

function modes(text: string): Modes {
  return {
    output: redact(text),
    code: redact(text, { codeFile: true }),
    fileRead: redact(text, { fileRead: true }),
    secretFile: redact(text, { fileRead: true, secretFile: true }),
    terminal: redactCommandOutput(text, 'cat notes.txt'),
    terminalSecretFile: redactCommandOutput(text, 'cat .env'),
    terminalEnvDump: redactCommandOutput(text, 'env'),
  };
}

/** Every mode gives `masked` where a head/tail or `***` mask is written, `sentinel` in file content. */
function everyMode(masked: string, sentinel: string): Modes {
  return { output: masked, code: masked, fileRead: sentinel, secretFile: sentinel, terminal: masked, terminalSecretFile: masked, terminalEnvDump: masked };
}

const b = (n: number, alphabet = 'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7'): string => alphabet.repeat(Math.ceil(n / alphabet.length)).slice(0, n);

// ---------------------------------------------------------------------------------------------
// Newer Hermes' prefixes (agent/redact.py _PREFIX_PATTERNS): masked in every mode.

const NEW_PREFIXES: ReadonlyArray<[label: string, token: string]> = [
  ['glpat-', 'glpat-' + b(10)],
  ['gloas-', 'gloas-' + b(12)],
  ['gldt-', 'gldt-' + b(12)],
  ['glrt-', 'glrt-' + 't1_' + b(10) + '.01.' + 'abc1234'],
  ['glrtr-', 'glrtr-' + b(10) + '.01.' + 'abc1234'],
  ['glcbt-', 'glcbt-' + '64_' + b(12)],
  ['glptt-', 'glptt-' + b(12)],
  ['glft-', 'glft-' + b(12)],
  ['glimt-', 'glimt-' + b(12)],
  ['glagent-', 'glagent-' + b(30)],
  ['glsoat-', 'glsoat-' + b(12)],
  ['glffct-', 'glffct-' + b(12)],
  ['glwt-', 'glwt-' + b(12)],
  ['GR1348941', 'GR1348941' + b(12)],
  ['pk-lf-', 'pk-lf-' + '0a1b2c3d'],
  ['sk-', 'sk-' + 'sp-' + 'abc.def' + b(12)],
];

test("newer Hermes' 15 prefixes and the dotted sk- body are masked in every mode, file content with the vendor's sentinel", () => {
  for (const [label, token] of NEW_PREFIXES) {
    const text = `token ${token} here`;
    const masked = `token ${maskToken(token)} here`;
    assert.deepEqual(modes(text), everyMode(masked, `token «redacted:${label}…» here`), token);
    assert.equal(containsSecret(text), true, token);
    // The prefix glued to a word, or a body under Hermes' floor, is no key.
    for (const near of [`my${token}`, token.slice(0, label.length + (label === 'pk-lf-' ? 7 : 9))]) {
      if (label === 'sk-' || label === 'glrt-' || label === 'glrtr-' || label === 'glcbt-') continue; // bodies with separators: checked below
      assert.equal(redact(`x ${near} y`), `x ${near} y`, near);
    }
  }
  // The examples.
  assert.equal(redact('token glpat-LuPgqSyRXzqh here'), 'token glpat-...Xzqh here');
  assert.equal(redact("password = 'gldt-abcdefghijkl'"), "password = '***'");
});

test('dotted sk- bodies: single dots inside, never `..` and never a trailing dot; a head/tail mask is not matched again', () => {
  const dotted = 'sk-' + 'ws-' + 'AbCd.EfGh.IjKl.MnOp';
  assert.equal(redact(`use ${dotted}.`), `use ${maskToken(dotted)}.`);
  assert.equal(redact('sk-' + 'abc..defghijklmnop'), 'sk-' + 'abc..defghijklmnop');
  const mask = redact('sk-' + 'proj-' + b(30));
  assert.equal(redact(mask), mask);
});

test("AgentMail keys: 0.19's wider shape is kept (newer Hermes narrows it to alphanumeric bodies)", () => {
  for (const key of ['am_' + 'example_identifier_123', 'am_' + 'org_' + b(24), 'am_' + b(12)]) {
    assert.deepEqual(modes(`see ${key} here`), everyMode(`see ${maskToken(key)} here`, 'see «redacted:am_…» here'), key);
  }
});

// ---------------------------------------------------------------------------------------------
// Passes newer Hermes added.

test('keys split by control or zero-width characters are joined and masked; a key and a word on two lines are not', () => {
  const esc = 'sk-' + 'abcdef' + '\x1b' + 'ghijklmnopqrs';
  assert.deepEqual(modes(esc), everyMode('sk-abc...pqrs', '«redacted:sk-…»'));
  const zw = 'ghp_' + 'abcdef' + '\u200b' + 'ghijklmnopqrs';
  assert.deepEqual(modes(zw), everyMode('ghp_ab...pqrs', '«redacted:ghp_…»'));
  const nl = 'ghp_' + 'abcdef' + '\n' + 'ghijklmnopqrs';
  assert.deepEqual(modes(nl), everyMode('ghp_ab...pqrs', '«redacted:ghp_…»'));
  // A key by itself on its line, then a word: the key alone is masked.
  const keyThenWord = 'ghp_' + 'abcdefghij1234567890' + '\nbutton';
  assert.equal(redact(keyThenWord), `${maskToken('ghp_' + 'abcdefghij1234567890')}\nbutton`);
  // Running into a `NAME=`: not joined.
  assert.equal(redact('sk_' + 'abcdefghij\nTAVILY_API_KEY=abc', { codeFile: true }), `${maskToken('sk_' + 'abcdefghij')}\nTAVILY_API_KEY=abc`);
  // Union: 0.19 masks the first part of this span by itself, newer Hermes shows the joined key's
  // head and tail; the gateway shows neither.
  const fragment = 'sk-' + 'abcdefghij' + '\u200b' + 'klmnopqrstuvwxyz';
  assert.deepEqual(modes(fragment), everyMode('***', '«redacted:sk-…»'));
});

test('Zhipu id.secret keys are masked in every mode; content-hash file names are not', () => {
  const key = '0123456789abcdef'.repeat(2) + '.' + 'AbCdEfGhIjKlMnOp';
  assert.deepEqual(modes(`ZHIPU ${key} end`), everyMode(`ZHIPU ${maskToken(key)} end`, 'ZHIPU «redacted-secret» end'));
  for (const near of ['0123456789abcdef'.repeat(2) + '.bundle', '0123456789ABCDEF'.repeat(2) + '.AbCdEfGhIjKlMnOp', 'x' + key]) {
    assert.equal(redact(near), near, near);
  }
});

test('any-case `_key`/`_pass`/`_pw`/`_token` names and upper-case KEY/PASS/PW names, under the value policy of newer Hermes', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['openai_key=abcdef123456', 'openai_key=***'],
    ['db_pw=hunter2', 'db_pw=***'],
    ['my_pass = letmein', 'my_pass=***'],
    // Read once, by the any-case pass: a head/tail, as Hermes masks it.
    ['run My_Api_Token = Zq8wX2vB7nM4kL9pR3tY now', 'run My_Api_Token=Zq8wX2...R3tY now'],
    ['DB_PASS=hunter2', 'DB_PASS=***'],
    ['MYSQL_PW=x1', 'MYSQL_PW=***'],
    ['SSH_KEY=Zq8wX2vB7nM4kL9pR3tY', 'SSH_KEY=***'],
  ];
  for (const [text, masked] of cases) {
    const sentinel = masked.replace(/\*\*\*|Zq8wX2\.\.\.R3tY/, '«redacted-secret»');
    assert.deepEqual(modes(text), { output: masked, code: text, fileRead: text, secretFile: sentinel, terminal: text, terminalSecretFile: masked, terminalEnvDump: masked }, text);
  }
  // Kept by newer Hermes' policy, and by 0.19's (which never reads these names).
  for (const text of ['KEYBOARD=us', 'SSH_KEY=abcdefgh', 'OPENAI_KEY=abc', 'set password=foo in the form', 'see https://example.com/cb and openai_key=abcdef123456']) {
    assert.equal(redact(text), text, text);
  }
  // Union: 0.19 masks what newer Hermes spares (a keyword anywhere in the name, any value).
  assert.equal(redact('MAX_TOKENS=100'), 'MAX_TOKENS=***');
  assert.equal(redact('SSH_AUTH_SOCK=$HOME/.ssh/agent.sock'), 'SSH_AUTH_SOCK=***');
  // A private key assigned to a strong name is left whole for the private-key pass, in every mode.
  const pem = 'API_KEY=-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
  for (const out of Object.values(modes(pem))) assert.equal(out, 'API_KEY=[REDACTED PRIVATE KEY]');
});

test('JSON fields escaped at any depth are masked where the assignment passes run', () => {
  const one = '{"output": "{\\"api_key\\": \\"abc123secretvalue\\"}"}';
  assert.equal(redact(one), '{"output": "{\\"api_key\\": \\"***\\"}"}');
  const two = '{"o": "{\\\\\\"password\\\\\\": \\\\\\"hunter2abc\\\\\\"}"}';
  assert.equal(redact(two), '{"o": "{\\\\\\"password\\\\\\": \\\\\\"***\\\\\\"}"}');
  const bs = '\\'.repeat(7);
  const three = `${bs}"token${bs}": ${bs}"tok3nvalue123${bs}"`;
  assert.equal(redact(three), `${bs}"token${bs}": ${bs}"***${bs}"`);
  assert.equal(redact(three, { fileRead: true, secretFile: true }), `${bs}"token${bs}": ${bs}"«redacted-secret»${bs}"`);
  assert.equal(redact(three, { codeFile: true }), three);
});

test('Python repr fields: masked whole where the assignment passes run, and on diagnostic lines of command output', () => {
  const repr = "{'BRAVE_API_KEY': 'opaque-value-123', 'client_secret': \"s3cr3t\", 'password': b'hunter2', 'token_count': '5'}";
  assert.deepEqual(modes(repr), {
    output: "{'BRAVE_API_KEY': '***', 'client_secret': \"***\", 'password': b'***', 'token_count': '5'}",
    code: repr,
    fileRead: repr,
    // Gateway: the sentinel, as every mask of file content (newer Hermes writes `***`).
    secretFile: "{'BRAVE_API_KEY': '«redacted-secret»', 'client_secret': \"«redacted-secret»\", 'password': b'«redacted-secret»', 'token_count': '5'}",
    terminal: repr,
    terminalSecretFile: "{'BRAVE_API_KEY': '***', 'client_secret': \"***\", 'password': b'***', 'token_count': '5'}",
    terminalEnvDump: "{'BRAVE_API_KEY': '***', 'client_secret': \"***\", 'password': b'***', 'token_count': '5'}",
  });
  // Already masked, an env lookup, an escaped quote.
  assert.equal(redact("{'Authorization': 'Digest ***'}"), "{'Authorization': 'Digest ***'}");
  assert.equal(redact("{'api_key': 'os.getenv(\"X\")'}"), "{'api_key': 'os.getenv(\"X\")'}");
  assert.equal(redact("{'api_key': 'ab\\'cd'}"), "{'api_key': '***'}");
  // Command output is code, but pytest's `E` lines and a final exception line get the repr pass; a
  // key the code pass masked head/tail there becomes `***`.
  const key = 'sk-' + 'proj-' + b(24);
  const out = [
    "cfg = {'password': 'hunter2'}",
    "E       AssertionError: assert {'api_key': 'abc123'} == {}",
    `E       assert {'api_key': '${key}'} == {}`,
    "requests.exceptions.HTTPError: {'token': 'abcdef'}",
  ].join('\n');
  assert.equal(
    redactCommandOutput(out, 'pytest -q'),
    [
      "cfg = {'password': 'hunter2'}",
      "E       AssertionError: assert {'api_key': '***'} == {}",
      "E       assert {'api_key': '***'} == {}",
      "requests.exceptions.HTTPError: {'token': '***'}",
    ].join('\n'),
  );
  // A mask that was in the output already stays.
  assert.equal(redactCommandOutput("E       assert {'api_key': 'abcdef...wxyz'}", 'pytest'), "E       assert {'api_key': 'abcdef...wxyz'}");
});

test("form bodies: 0.19's and newer Hermes' sensitive names, in every mode", () => {
  assert.deepEqual(modes('session=abc&code=xyz'), everyMode('session=***&code=***', 'session=***&code=***'));
  assert.deepEqual(modes('sig=abc&x=1'), everyMode('sig=***&x=1', 'sig=***&x=1'));
  assert.equal(redact('x-amz-signature=abcdef&x-goog-signature=123456&signature=zz&page=1'), 'x-amz-signature=***&x-goog-signature=***&signature=***&page=1');
});

test('a secret-bearing file read by a command is redacted whole; the same text from another command stays source', () => {
  const env = 'API_KEY=abc123\nMAX_TOKENS=100\nDEBUG=true';
  const whole = 'API_KEY=***\nMAX_TOKENS=***\nDEBUG=true';
  for (const command of ['cat .env', 'grep TOKEN ~/.bashrc', 'sed -n 1p ~/.hermes/config.yaml', 'cat $HERMES_HOME/config.yaml', 'cat .env | grep X', 'env', "echo 'a | env b'"]) {
    assert.equal(redactCommandOutput(env, command), whole, command);
  }
  for (const command of ['cat notes.txt', 'grep .bashrc app.py', 'sudo cat .env', 'cat .env.example', 'zcat .env.gz']) {
    assert.equal(redactCommandOutput(env, command), env, command);
  }
  assert.equal(redactCommandOutput('', 'cat .env'), '');
});

test('redaction stays idempotent over the new fixtures, in every mode', () => {
  const fixtures = [
    ...NEW_PREFIXES.map(([, t]) => `k ${t} v`),
    'ghp_' + 'abcdef' + '\u200b' + 'ghijklmnopqrs',
    '0123456789abcdef'.repeat(2) + '.' + 'AbCdEfGhIjKlMnOp',
    'run My_Api_Token = Zq8wX2vB7nM4kL9pR3tY now',
    "{'BRAVE_API_KEY': 'opaque-value-123'}",
    '{"o": "{\\\\\\"password\\\\\\": \\\\\\"hunter2abc\\\\\\"}"}',
    'docker run -e API_TOKEN=Zq8wX2vB7nM4kL9pR3tY img',
  ];
  for (const text of fixtures) {
    for (const options of [{}, { codeFile: true }, { fileRead: true }, { fileRead: true, secretFile: true }]) {
      const once = redact(text, options);
      assert.equal(redact(once, options), once, `${JSON.stringify(options)} ${text}`);
    }
    const once = redact(text);
    assert.equal(containsSecret(once), false, text);
  }
});

test('adversarial 65,536-character inputs for the new passes come back right and in linear time', () => {
  const N = 65_536;
  const fill = (fragment: string): string => fragment.repeat(Math.ceil(N / fragment.length)).slice(0, N);
  const inputs = [
    fill('a_'),
    fill('_'),
    fill('x_key'),
    fill('a_key='),
    fill('\\'),
    fill('\\\\"'),
    fill("'k': '"),
    fill("'k':\"'"),
    fill("'k':'\\'"),
    fill('a.'),
    fill('0123456789abcdef'),
    fill('sk-a.'),
    fill('sk-\u200b'),
    fill('ghp_abc\n'),
    fill('E   '),
    fill('a.b'),
    fill('SSH_KEY=$a'),
    'SECRET_KEY=$' + fill('a').slice(1) + '!',
    'SECRET_KEY=/' + fill('a/').slice(1),
  ];
  const cpu = (texts: string[]): number => {
    const t0 = process.cpuUsage();
    for (const text of texts) {
      redact(text);
      redactCommandOutput(text, 'pytest');
    }
    const { user, system } = process.cpuUsage(t0);
    return (user + system) / 1000;
  };
  const quarter = inputs.map((t) => t.slice(0, N / 4));
  cpu(quarter);
  const best = (texts: string[]): number => Math.min(cpu(texts), cpu(texts), cpu(texts));
  const tSmall = best(quarter);
  const tLarge = best(inputs);
  // Linear work scales by 4; anything quadratic by 16 and more. Generous bounds both ways.
  assert.ok(tLarge / Math.max(tSmall, 1) < 9, `16k: ${tSmall.toFixed(1)} ms, 64k: ${tLarge.toFixed(1)} ms`);
  assert.ok(tLarge < 20_000, `64k inputs took ${tLarge.toFixed(0)} ms`);
  // Nothing secret-shaped in these: unchanged (the control-split fill joins nothing either).
  for (const text of [fill('a_'), fill('\\'), fill('a.'), fill('E   ')]) assert.equal(redact(text), text);
});
