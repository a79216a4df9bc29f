import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskToken, redact } from '../../shared/redact.js';
import { containsSecret } from '../../shared/secret-detect.js';

// Fixture secrets are assembled from pieces so this file never holds a literal that a repository
// secret scanner would flag; none of them is a real credential.
const OPENAI_KEY = 'sk-' + 'proj-' + 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4f';
const GITHUB_PAT = 'ghp' + '_' + 'R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678';
const AWS_KEY_ID = 'AKI' + 'A' + 'IOSFODNN7EXAMPLE';
const SLACK_BOT = 'xox' + 'b-' + '1234567890-0987654321-AbCdEfGhIjKl';
const JWT =
  'eyJ' + 'hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9' + '.eyJ' + 'zdWIiOiIxMjM0NTY3ODkwIn0' + '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const TELEGRAM = 'bot' + '123456789' + ':' + 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

test('maskToken keeps 6 head + 4 tail characters from 18 characters up, else ***', () => {
  assert.equal(maskToken(''), '***');
  assert.equal(maskToken('abcdefghijklmnopq'), '***'); // 17
  assert.equal(maskToken('abcdefghijklmnopqr'), 'abcdef...opqr'); // 18
  assert.equal(maskToken(OPENAI_KEY), 'sk-pro...Cd4f');
});

test('pass 1: known key prefixes are masked, with word-boundary guards', () => {
  assert.equal(redact(`using ${OPENAI_KEY} for chat`), 'using sk-pro...Cd4f for chat');
  assert.equal(redact(`token is ${GITHUB_PAT}.`), 'token is ghp_R4...5678.');
  assert.equal(redact(`aws ${AWS_KEY_ID} slack ${SLACK_BOT}`), 'aws AKIAIO...MPLE slack xoxb-1...IjKl');
  // Prefix glued to a preceding identifier character: not a key.
  assert.equal(redact(`mysk-${'a'.repeat(20)}`), `mysk-${'a'.repeat(20)}`);
  // Bodies shorter than the floor are left alone; short tokens (< 18) mask fully.
  assert.equal(redact('ghp_abc and sk-1'), 'ghp_abc and sk-1');
  assert.equal(redact('hf_abcdefghij1'), '***');
  // JSON-escaped text: the `n` of `\n` must not shield a key on the next escaped line.
  assert.equal(redact(`"line one\\n${GITHUB_PAT}"`), '"line one\\nghp_R4...5678"');
});

test('pass 2: ENV assignments, dotted config keys and line-anchored lowercase keys', () => {
  assert.equal(
    redact('OPENAI_API_KEY=q8Zr2LmX9vTn4KpW7sYd\nDB_PASSWORD="hunter2"\nGH_TOKEN = abc123def456'),
    // As Hermes writes them: `NAME=value`, and a line-anchored one masked twice (the config pass
    // masks the upper-case pass's 13-character head/tail mask again, to ***).
    'OPENAI_API_KEY=***\nDB_PASSWORD="***"\nGH_TOKEN=***',
  );
  // Mid-line, 0.19 shows a head/tail and newer Hermes (its any-case pass reading the strong name
  // once more) `***`: the less revealing of the two.
  assert.equal(redact('docker run -e API_TOKEN=q8Zr2LmX9vTn4KpW7sYd img'), 'docker run -e API_TOKEN=*** img');
  assert.equal(
    redact('spring.datasource.password=s3cr3t\nexport api_key=abcdef123456'),
    'spring.datasource.password=***\nexport api_key=***',
  );
  // A dotted key is a config key anywhere on the line, not only at its start.
  assert.equal(
    redact('java -Dspring.datasource.password=s3cr3t -jar app.jar'),
    'java -Dspring.datasource.password=*** -jar app.jar',
  );
  // A vendor-prefixed value is masked by pass 1 first, and that mask again by pass 2, as in Hermes.
  assert.equal(redact(`OPENAI_API_KEY=${OPENAI_KEY}`), 'OPENAI_API_KEY=***');
  // A name that contains a keyword is a secret's name, whatever its value (Hermes masks limits,
  // flags and variable references too); only env lookups are code, not values.
  assert.equal(
    redact('MAX_TOKENS=4096\nAUTHOR=Smith\nAPI_KEY = os.getenv("OPENAI_API_KEY")\nREQUIRE_AUTH=true\nGITHUB_TOKEN=$GH_TOKEN'),
    'MAX_TOKENS=***\nAUTHOR=***\nAPI_KEY = os.getenv("OPENAI_API_KEY")\nREQUIRE_AUTH=***\nGITHUB_TOKEN=***',
  );
  // A comparison is not an assignment (Gateway: Hermes masks its second `=`).
  assert.equal(redact('if TOKEN == expected: pass'), 'if TOKEN == expected: pass');
  // An assignment right after a non-secret one is still found, and a quote inside a value, or an
  // opening quote never closed, does not cut the value short; a closing quote stays.
  assert.equal(redact('4096=TOKEN_VALUE=q8Zr2LmX9vTn4KpW7sYd'), '4096=TOKEN_VALUE=q8Zr2L...7sYd');
  assert.equal(redact("x DB_PASSWORD=pa'ssw0rd-0123456789 y"), 'x DB_PASSWORD=*** y');
  assert.equal(redact("x DB_PASSWORD=pa'ssw0rd-0123456789 y", { fileRead: true, secretFile: true }), 'x DB_PASSWORD=«redacted-secret» y');
  assert.equal(redact('x API_KEY="q8Zr2LmX9vTn4KpW7sYd'), 'x API_KEY=***');
  assert.equal(redact('x API_KEY="q8Zr2LmX9vTn4KpW7sYd', { codeFile: true }), 'x API_KEY="q8Zr2LmX9vTn4KpW7sYd');
  assert.equal(redact('{"env": "API_KEY=q8Zr2LmX9vTn4KpW7sYd", "x": 1}'), '{"env": "API_KEY=***", "x": 1}');
  // Lowercase forms are off when the text holds a URL (query params must round-trip);
  // the uppercase form still applies.
  assert.equal(
    redact('see https://example.com/cb\nsettings.password=abc123\nAPI_SECRET=zzz'),
    'see https://example.com/cb\nsettings.password=abc123\nAPI_SECRET=***',
  );
});

test('pass 3: JSON fields are masked, quotes and escapes kept intact', () => {
  const input = '{"apiKey": "q8Zr2LmX9vTn4KpW7sYdQ", "password":"p\\"w", "name": "demo", "max_tokens": "4096"}';
  const output = redact(input);
  // A masked field is written `"key": "value"`, as Hermes writes it. Gateway: the escaped quote
  // does not end the value (Hermes masks `p\` and leaves `"w`).
  assert.equal(output, '{"apiKey": "q8Zr2L...sYdQ", "password": "***", "name": "demo", "max_tokens": "4096"}');
  assert.deepEqual(JSON.parse(output), { apiKey: 'q8Zr2L...sYdQ', password: '***', name: 'demo', max_tokens: '4096' });
  // The same field inside a JSON-encoded string.
  assert.equal(redact('{"out": "{\\"token\\": \\"abcdefghij\\"}"}'), '{"out": "{\\"token\\": \\"***\\"}"}');
});

test('pass 4: unquoted YAML key: value lines', () => {
  const yaml = [
    'database:',
    '  password: hunter2',
    '  - api_key: "quoted secret"',
    '  token_url: https://auth.example.com/token',
    '  max_tokens: 100',
    '  tokenizer: cl100k_base',
    'note: the secret meeting',
  ].join('\n');
  assert.equal(
    redact(yaml),
    [
      'database:',
      '  password: ***',
      '  - api_key: "***"',
      '  token_url: https://auth.example.com/token',
      '  max_tokens: ***',
      '  tokenizer: ***',
      'note: the secret meeting',
    ].join('\n'),
  );
});

test('pass 5: Authorization headers keep the scheme and the quotes', () => {
  assert.equal(
    redact('curl -H "Authorization: Bearer q8Zr2LmX9vTn4KpW7sYdQ" https://api.example.com'),
    'curl -H "Authorization: Bearer q8Zr2L...sYdQ" https://api.example.com',
  );
  assert.equal(redact("proxy-authorization: Basic dXNlcjpwYXNz"), 'proxy-authorization: Basic ***');
  assert.equal(redact('{"Authorization": "Token abc123"}'), '{"Authorization": "Token ***"}');
  assert.equal(redact('Authorization: opaquecredential'), 'Authorization: ***');
});

test('pass 6: API-key headers', () => {
  assert.equal(
    redact("curl -H 'x-api-key: q8Zr2LmX9vTn4KpW7sYdQ' -H 'X-Goog-Api-Key: short1'"),
    "curl -H 'x-api-key: q8Zr2L...sYdQ' -H 'X-Goog-Api-Key: ***'",
  );
  assert.equal(redact('sent X-Auth-Token: abc123 and x-access-token:def456'), 'sent X-Auth-Token: *** and x-access-token:***');
  // A headers dict as JSON keeps its quotes.
  assert.equal(redact('{"headers": {"x-api-key": "abc123"}}'), '{"headers": {"x-api-key": "***"}}');
});

test('pass 7: Telegram bot tokens keep the bot id', () => {
  assert.equal(
    redact(`https://api.telegram.org/${TELEGRAM}/getMe`),
    'https://api.telegram.org/bot123456789:***/getMe',
  );
  assert.equal(redact('id 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'), 'id 123456789:***');
});

test('pass 8: PEM private key blocks, including a block cut off by truncation', () => {
  const pem = [
    '-----BEGIN RSA PRIVATE KEY-----',
    'MIIEowIBAAKCAQEA2a2rwplBQLFpWlvXz0mPjXk1xYy8M1RjTx3o4pXQ3q5zF5N4',
    'Q7sK3pQ9vY2xZ8n1Lm4tR6wB0jH5cV7uE2fG9kD3sA==',
    '-----END RSA PRIVATE KEY-----',
  ].join('\n');
  assert.equal(redact(`key file:\n${pem}\ndone`), 'key file:\n[REDACTED PRIVATE KEY]\ndone');
  const truncated = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAABAAAAMwAAAAtzc2gtZW\n[output truncated]';
  assert.equal(redact(truncated), '[REDACTED PRIVATE KEY]\n[output truncated]');
  // A public certificate is not a private key.
  const cert = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';
  assert.equal(redact(cert), cert);
});

test('pass 9: database connection-string passwords', () => {
  assert.equal(redact('DATABASE_URL=postgres://u:pw@h/db'), 'DATABASE_URL=postgres://u:***@h/db');
  assert.equal(
    redact('mongodb+srv://admin:S3cr3t!@cluster0.example.net and redis://:redispass@localhost:6379/0'),
    'mongodb+srv://admin:***@cluster0.example.net and redis://:***@localhost:6379/0',
  );
  assert.equal(redact('mysql://root:toor@127.0.0.1:3306/app'), 'mysql://root:***@127.0.0.1:3306/app');
  // No password: nothing to mask.
  assert.equal(redact('postgresql://localhost:5432/app'), 'postgresql://localhost:5432/app');
});

test('pass 10: bare-token URL userinfo is masked; user:password userinfo keeps the user, masks the password', () => {
  assert.equal(
    redact(`git remote set-url origin https://${GITHUB_PAT}@github.com/o/r.git`),
    // Pass 1's mask of the PAT, masked again by this pass as in Hermes.
    'git remote set-url origin https://***@github.com/o/r.git',
  );
  assert.equal(
    redact('git clone https://oauth2tokenvalue1234@gitlab.example.com/o/r.git'),
    'git clone https://oauth2...1234@gitlab.example.com/o/r.git',
  );
  // Gateway: basic-auth URLs lose their password (Hermes passes web-URL userinfo through).
  assert.equal(redact('open https://alice:wonderland@example.com/x'), 'open https://alice:***@example.com/x');
  // A password pass 1 already masked keeps that more informative mask.
  assert.equal(redact(`https://oauth2:${GITHUB_PAT}@github.com/o/r`), 'https://oauth2:ghp_R4...5678@github.com/o/r');
  // No password, a port, or an `@` in the path or query: nothing to mask.
  const kept = 'ssh://git@github.com/o/r and https://example.com:8443/p?email=someone@example.com and https://example.com?email=someone@example.com';
  assert.equal(redact(kept), kept);
});

test('pass 11: JWTs', () => {
  assert.equal(redact(`id_token: ${JWT}`), 'id_token: eyJhbG...sw5c');
  assert.equal(redact(`{"jwt":"${JWT}"}`), '{"jwt":"eyJhbG...sw5c"}');
  // Too short to be a JWT.
  assert.equal(redact('eyJabc'), 'eyJabc');
});

test('pass 12: form-urlencoded bodies', () => {
  assert.equal(
    redact('grant_type=password&username=bob&password=hunter2&client_secret=xyz'),
    'grant_type=password&username=bob&password=***&client_secret=***',
  );
  assert.equal(redact('a=1&Key=abc&next=/home'), 'a=1&Key=***&next=/home');
  // Not a whole-text form body: left alone.
  const prose = 'the query was page=2&sort=asc for key=abc';
  assert.equal(redact(prose), prose);
});

test('pass 13: E.164 phone numbers', () => {
  assert.equal(redact('call +14155550123 now'), 'call +141****0123 now');
  assert.equal(redact('short +1234567'), 'short +1****67');
  // Too long for E.164, or glued to a letter or digit after it: not a phone number.
  const kept = 'id +1234567890123456 +14155550123x +141555501234567890';
  assert.equal(redact(kept), kept);
  // Nothing is required before the `+`, as in Hermes.
  assert.equal(redact('x+14155550123 1+2345678'), 'x+141****0123 1+2****78');
});

test('codeFile skips the ENV/config/JSON/YAML passes but keeps the others', () => {
  const code = [
    'MAX_TOKENS = 100',
    'DEFAULT_PASSWORD = "changeme"',
    'fixture = {"apiKey": "test-value"}',
    'token: placeholder',
    'url = f"postgresql://{user}:{password}@{host}/db"',
    `client = OpenAI(api_key="${OPENAI_KEY}")`,
    'dsn = "postgres://app:literalpw@db/app"',
  ].join('\n');
  assert.equal(
    redact(code, { codeFile: true }),
    [
      'MAX_TOKENS = 100',
      'DEFAULT_PASSWORD = "changeme"',
      'fixture = {"apiKey": "test-value"}',
      'token: placeholder',
      'url = f"postgresql://{user}:{password}@{host}/db"',
      'client = OpenAI(api_key="sk-pro...Cd4f")',
      'dsn = "postgres://app:***@db/app"',
    ].join('\n'),
  );
  // Without codeFile the same text is treated as output, not source.
  assert.match(redact(code), /DEFAULT_PASSWORD="\*\*\*"/);
  assert.match(redact(code), /postgresql:\/\/\{user\}:\*\*\*@/);
});

// Hermes' file-read mode (`redact_sensitive_text(text, file_read=True)`): the expected strings are
// what Hermes' own function answers for these texts, except where "Gateway:" says otherwise.
test('fileRead keeps code assignments and writes a non-reusable sentinel for prefixed keys', () => {
  const file = ['1|DATABASE_PASSWORD = "hunter2hunter2hunter2"', `2|token = "${GITHUB_PAT}"`, `3|aws = "${AWS_KEY_ID}" slack = "${SLACK_BOT}"`].join('\n');
  assert.equal(
    redact(file, { fileRead: true }),
    ['1|DATABASE_PASSWORD = "hunter2hunter2hunter2"', '2|token = "«redacted:ghp_…»"', '3|aws = "«redacted:AKIA…»" slack = "«redacted:xox…»"'].join('\n'),
  );
  // The same passes as codeFile otherwise: fixtures, limits and f-string templates are kept,
  // a literal DSN password is still ***, a PEM block still the marker.
  const code = ['MAX_TOKENS=100', '"apiKey": "test"', 'url = f"postgresql://{user}:{pw}@{host}/db"', 'dsn = "postgres://app:literalpw@db/app"'].join('\n');
  assert.equal(redact(code, { fileRead: true }), code.replace('literalpw', '***'));
  // Gateway: Hermes keeps the head/tail form for headers, bare URL tokens and JWTs in this mode;
  // here they get the sentinel too, since a head/tail mask in a file is just as writable back.
  assert.equal(redact(`jwt = ${JWT}`, { fileRead: true }), 'jwt = «redacted-secret»');
  assert.equal(redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz123', { fileRead: true }), 'Authorization: Bearer «redacted-secret»');
  // A sentinel inside a URL's userinfo is not taken for `user:password`.
  assert.equal(redact(`https://${GITHUB_PAT}@github.com/o/r`, { fileRead: true }), 'https://«redacted:ghp_…»@github.com/o/r');
  // Idempotent in every mode: what file-read mode wrote is clean for output mode too.
  const once = redact(file, { fileRead: true });
  assert.equal(redact(once, { fileRead: true }), once);
  assert.equal(containsSecret(`api_key = "${nonReusable()}"`), false);
});

function nonReusable(): string {
  return redact(GITHUB_PAT, { fileRead: true });
}

test('fileRead with secretFile runs the assignment passes, with the sentinel, behind a line-number gutter', () => {
  const rc = ['1|export SERVICE_TOKEN=Zq8wX2vB7nM4kL9pR3tY', '2|  api_key: hunter2hunter2', '3|MAX_TOKENS=100', `4|GITHUB_TOKEN: ${GITHUB_PAT}`].join('\n');
  assert.equal(
    redact(rc, { fileRead: true, secretFile: true }),
    ['1|export SERVICE_TOKEN=«redacted-secret»', '2|  api_key: «redacted-secret»', '3|MAX_TOKENS=«redacted-secret»', '4|GITHUB_TOKEN: «redacted:ghp_…»'].join('\n'),
  );
  // Without secretFile the opaque values are code, as in Hermes.
  assert.equal(redact(rc, { fileRead: true }), rc.replace(GITHUB_PAT, '«redacted:ghp_…»'));
  // The gutter counts in output mode too (`grep -n`, `cat -n`): Hermes `_LINE_NUMBER_GUTTER`.
  assert.equal(redact('6:password=hunter2hunter2'), '6:password=***');
});

test('negative cases: clean text is returned unchanged', () => {
  const clean = [
    'The deploy finished in 42s; see the dashboard for details.',
    'Visit https://internal.example.com:8443/status?owner=ops@example.com for the legacy page.',
    'The sk-1 model and task_runner are unrelated to secrets.',
    'function add(a: number, b: number): number { return a + b; }',
    'const token = await getToken(); if (token == null) throw new Error("no token");',
    'Our author: Jane Doe. Authored 2024. Tokenizer: cl100k_base',
    'Ratio 3:2, time 12:30:45, version v1.2.3, email ops@example.com',
  ];
  for (const text of clean) {
    assert.equal(redact(text), text, text);
    assert.equal(containsSecret(text), false, text);
  }
  assert.equal(redact(''), '');
});

test('containsSecret is true exactly when redact would change the text', () => {
  assert.equal(containsSecret(`remember my key ${OPENAI_KEY}`), true);
  assert.equal(containsSecret('DB_PASSWORD=hunter2'), true);
  assert.equal(containsSecret('the user prefers dark mode'), false);
  // Already-redacted text is clean: the model may quote a redacted result back into memory.
  assert.equal(containsSecret(redact(`Authorization: Bearer ${'q8Zr2LmX9vTn4KpW7sYd'}`)), false);
});

test('redact is idempotent over every fixture', () => {
  const fixtures = [
    `OPENAI_API_KEY=${OPENAI_KEY}`,
    `Authorization: Bearer ${'q8Zr2LmX9vTn4KpW7sYd'}`,
    `https://${GITHUB_PAT}@github.com/o/r`,
    'https://oauth2tokenvalue1234@gitlab.example.com/o/r.git',
    'x-api-key: q8Zr2LmX9vTn4KpW7sYdQ',
    `{"apiKey": "q8Zr2LmX9vTn4KpW7sYdQ", "token": "${JWT}"}`,
    'postgres://u:pw@h/db',
    `${TELEGRAM} ${AWS_KEY_ID} ${SLACK_BOT} +14155550123`,
    'grant_type=password&password=hunter2',
    'password: hunter2\nGH_TOKEN=abc123def456ghi789jkl',
  ];
  for (const text of fixtures) {
    const once = redact(text);
    assert.notEqual(once, text, text);
    assert.equal(redact(once), once, text);
  }
});

test('adversarial 65,536-character inputs are processed correctly (linear-time regexes)', () => {
  const N = 65_536;
  const fill = (fragment: string): string => fragment.repeat(Math.ceil(N / fragment.length)).slice(0, N);

  // No secret shape anywhere: must come back unchanged.
  for (const fragment of ['a=', 'a.', 'TOKEN', 'AUTHOR ', '1', '+1', 'redis://', 'https://', '"token":"', 'Authorization', 'x-api-key', '-----BEGIN ']) {
    const text = fill(fragment);
    assert.equal(text.length, N);
    assert.equal(redact(text), text, fragment);
  }

  // One unbroken token run: masked as a single token.
  // (65,536 is not a multiple of 3, so each run ends in a partial fragment.)
  assert.equal(redact(fill('sk-')), 'sk-sk-...sk-s');
  assert.equal(redact(fill('eyJ')), 'eyJeyJ...eyJe');

  // Many short assignments: every value masked, nothing else touched.
  const assignments = fill('A_TOKEN=x\n');
  assert.equal(redact(assignments), assignments.replaceAll('A_TOKEN=x', 'A_TOKEN=***'));

  // Many PEM headers without any END marker: each is redacted, in one linear sweep.
  const headers = fill('-----BEGIN PRIVATE KEY----- ');
  const redactedHeaders = redact(headers);
  assert.ok(!redactedHeaders.includes('-----BEGIN PRIVATE KEY-----'));
  assert.ok(redactedHeaders.startsWith('[REDACTED PRIVATE KEY] [REDACTED PRIVATE KEY] '));

  // Many scheme prefixes with no `@`: nothing to mask.
  const urls = fill('postgres://user:pass');
  assert.equal(redact(urls), urls);
});
