import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactEnvAssignments } from '../../../shared/redact/assignments.js';
import { FILE_READ_MASKER, outputMaskerForOneCall } from '../../../shared/redact/mask.js';

// Pass 2 on its own: ENV assignments (upper case, then newer Hermes' any-case names) and config
// assignments (dotted names anywhere, plain names at a line start).

const LONG = 'hunter2hunter2hunter2';

test('upper-case names holding a keyword are masked, written back without spaces around =', () => {
  assert.equal(redactEnvAssignments(`OPENAI_API_KEY=${LONG}`), 'OPENAI_API_KEY=hunter...ter2');
  assert.equal(redactEnvAssignments(`export GITHUB_TOKEN = ${LONG} # note`), 'export GITHUB_TOKEN=hunter...ter2 # note');
  assert.equal(redactEnvAssignments('AUTHOR=ann'), 'AUTHOR=***', '0.19 masks any value of a keyword name');
  assert.equal(redactEnvAssignments('WIDTH=100 HEIGHT=20'), 'WIDTH=100 HEIGHT=20');
});

test('comparisons, empty values and a value on the next line are left alone', () => {
  assert.equal(redactEnvAssignments('if TOKEN == x'), 'if TOKEN == x');
  assert.equal(redactEnvAssignments('API_KEY=\nnext line'), 'API_KEY=\nnext line');
  assert.equal(redactEnvAssignments('API_KEY=""'), 'API_KEY=""');
  assert.equal(redactEnvAssignments('no equals sign at all'), 'no equals sign at all');
});

test('quotes: a quoted value keeps its quotes, an enclosing string keeps its closing quote', () => {
  assert.equal(redactEnvAssignments(`DB_PASSWORD="${LONG} x"`), 'DB_PASSWORD="***"');
  assert.equal(redactEnvAssignments(`{"env": "API_SECRET=${LONG}"}`), '{"env": "API_SECRET=hunter...ter2"}');
  assert.equal(redactEnvAssignments("f('TOKEN=abc'),"), "f('TOKEN=***'),");
  assert.equal(redactEnvAssignments("PASSWORD=pa'ss"), 'PASSWORD=***', 'a quote inside the value belongs to it');
});

test('a secret-named assignment right after another assignment\'s = is still found', () => {
  assert.equal(redactEnvAssignments('x=API_KEY=abc'), 'x=API_KEY=***');
  assert.equal(redactEnvAssignments('4096=TOKEN=abc'), '4096=TOKEN=***');
});

test('newer Hermes\' names (KEY, PASS, PW) follow its value policy', () => {
  assert.equal(redactEnvAssignments('DB_PASS=x'), 'DB_PASS=***');
  assert.equal(redactEnvAssignments('KEYBOARD=us'), 'KEYBOARD=us');
  assert.equal(redactEnvAssignments('SSH_KEY=short'), 'SSH_KEY=short', 'a weak key and a word-like value');
  assert.equal(redactEnvAssignments('SSH_KEY=AAAAB3NzaC1yc2EAAAADAQAB'), 'SSH_KEY=AAAAB3...AQAB');
});

test('any-case names ending in _key, _pw, … are masked, except in text holding a URL', () => {
  assert.equal(redactEnvAssignments(`openai_key=${LONG}`), 'openai_key=hunter...ter2');
  assert.equal(redactEnvAssignments('db_pw = x'), 'db_pw=***');
  assert.equal(redactEnvAssignments('my_key=us'), 'my_key=us', 'a weak key and a word-like value');
  assert.equal(redactEnvAssignments(`see https://x.example/cb and openai_key=${LONG}`), `see https://x.example/cb and openai_key=${LONG}`);
});

test('config assignments: dotted names anywhere, plain names only at a line start', () => {
  assert.equal(redactEnvAssignments('spring.datasource.password=secret1'), 'spring.datasource.password=***');
  assert.equal(redactEnvAssignments('run with aws.secret-key=abc&user=bob'), 'run with aws.secret-key=***&user=bob', 'stops at &');
  assert.equal(redactEnvAssignments('api_token=abc\n  5|  password=xyz'), 'api_token=***\n  5|  password=***');
  assert.equal(redactEnvAssignments('self.password = password'), 'self.password = password', 'code, not config');
  assert.equal(redactEnvAssignments('then password=xyz'), 'then password=xyz', 'not at a line start');
  assert.equal(redactEnvAssignments('https://h/?token=abc'), 'https://h/?token=abc', 'query parameters pass through');
});

test('with one call\'s masker, the any-case pass masks the upper-case pass\'s head/tail mask again', () => {
  // The less revealing of the two versions' answers: `docker run -e API_TOKEN=***`.
  assert.equal(redactEnvAssignments(`docker run -e API_TOKEN=${LONG}`, outputMaskerForOneCall()), 'docker run -e API_TOKEN=***');
  assert.equal(redactEnvAssignments('API_TOKEN=hunter...ter2', outputMaskerForOneCall()), 'API_TOKEN=hunter...ter2', 'a mask in the input stays');
});

test('the file-read masker writes sentinels', () => {
  assert.equal(redactEnvAssignments(`API_KEY=${LONG}\nspring.x.password=y`, FILE_READ_MASKER), 'API_KEY=«redacted-secret»\nspring.x.password=«redacted-secret»');
});
