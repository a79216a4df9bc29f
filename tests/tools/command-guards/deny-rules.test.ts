import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { checkCommand } from '../../../supervisor/tools/command-guards/index.js';
import { expansions, OperatorDenyRules, rulesOf } from '../../../supervisor/tools/command-guards/deny-rules.js';
import { compileGlob, globMatches } from '../../../supervisor/tools/command-guards/fnmatch.js';
import { pythonStrip } from '../../../shared/python-strip.js';
import { hermes } from '../../helpers/hermes.js';
import { tempDirs } from '../../helpers/temp.js';

// The operator's approvals.deny rules (supervisor/tools/command-guards/deny-rules.ts) as files on disk: how
// each shape of `deny` reads, `${VAR}` expansion, the managed scope beside the user's config, an
// edit applying to the next command, a file that cannot be read. The glob matching is compared with
// Python's own fnmatch.fnmatchcase (run in Hermes' interpreter). How a command's words reach the
// globs is compared with both Hermes versions by the fidelity suite (cases/command_guards.yaml `deny`).

const temp = tempDirs();
after(() => temp.removeAll());

const ENV = { DENY_TOOL: 'kubectl', SPACED: 'terraform' };
const rules = (doc: unknown) => rulesOf(doc, 'config.yaml', ENV);
const globs = (doc: unknown) => {
  const r = rules(doc);
  return 'rules' in r ? r.rules.map((x) => x.glob) : r;
};

describe('approvals.deny as written', () => {
  test('a list of strings: each stripped, empty ones dropped, order kept', () => {
    assert.deepEqual(globs({ approvals: { deny: ['git push*', '  docker rm *  ', '', '   '] } }), ['git push*', 'docker rm *']);
  });

  test('no rules: no approvals, no deny, null, false or an empty list; an approvals that is no mapping holds none either', () => {
    for (const doc of [{}, { approvals: {} }, { approvals: { deny: null } }, { approvals: { deny: false } }, { approvals: { deny: [] } }, { approvals: null }, { approvals: 'off' }, null, ['x']]) {
      assert.deepEqual(globs(doc), [], JSON.stringify(doc));
    }
  });

  test('a deny that is not a list of strings is refused, naming the file and what is wrong', () => {
    // Hermes iterates a string's characters (`*` would then block everything) and a mapping's keys,
    // and drops items that are not strings: a rule the operator wrote is never silently lost here.
    const problems: Array<[unknown, RegExp]> = [
      ['git push*', /must be a list of glob strings, but it is a string \("git push\*"\)/],
      [{ 'git push*': true }, /but it is a mapping/],
      [42, /but it is a number \(42\)/],
      [['git push*', 7], /item 2 is a number \(7\)/],
      [['git push*', { 'echo foo': 'bar' }], /item 2 is a mapping \(quote a rule that YAML reads as something else\)/],
      [[true], /item 1 is a boolean/],
    ];
    for (const [deny, message] of problems) {
      const r = rules({ approvals: { deny } });
      assert.ok('problem' in r, JSON.stringify(deny));
      assert.match(r.problem, /^approvals\.deny in config\.yaml /);
      assert.match(r.problem, message);
    }
  });

  test('${VAR} is expanded as each Hermes does: unset stays as written; later Hermes also reads ${env:VAR} and ${ VAR }', () => {
    assert.deepEqual(expansions('${DENY_TOOL} delete *', ENV), ['kubectl delete *']);
    assert.deepEqual(expansions('${UNSET} x', ENV), ['${UNSET} x']);
    assert.deepEqual(expansions('${env:DENY_TOOL} x', ENV), ['${env:DENY_TOOL} x', 'kubectl x']);
    assert.deepEqual(expansions('${ SPACED } destroy*', ENV), ['${ SPACED } destroy*', 'terraform destroy*']);
    assert.deepEqual(expansions('${vault:secret} x', ENV), ['${vault:secret} x']);
    // Both spellings are matched; the refusal names the newest Hermes' reading.
    const r = rules({ approvals: { deny: ['${env:DENY_TOOL} delete *'] } });
    assert.ok('rules' in r);
    assert.equal(r.rules[0]!.glob, 'kubectl delete *');
    assert.equal(r.rules[0]!.compiled.length, 2);
  });
});

describe("Python's fnmatch.fnmatchcase, as Hermes matches a glob", () => {
  test('the same answer for every glob and text of a table, from Hermes’ own interpreter', () => {
    const patterns = ['*', '?', '', 'git push*', '*evil*', '[abc]x', '[!abc]x', '[a-c]x', '[c-a]x', '[]]', '[!]]', '[abc', 'a\\b', '[\\]x', '[a-]', '[-a]', '[!]', '[]', '**a**', '*a*b*c*', 'x?y*', '[%-!]', '[z-a-c]', '[a-c-e]', '[^x]', '[[]', '[&&]', '[~]', '[|]', 'é*', '[é-ü]x', '*\n*', '*[!a-z]prod*', '[!-]', '[a-c-]x', '[---]', '[+--]', '*.py', 'a[!b]c'];
    const texts = ['', 'a', 'x', 'ax', 'bx', 'dx', ']', '!', 'git push', 'git pushx', 'a\\b', '\\x', '-', 'ab', 'aXbYc', 'a\nb', 'é', 'ñx', 'üx', '^x', '[', '&', '~', '|', 'x prod', 'xprod', ' prod-db', 'abc', 'axc', 'x.py', '+', ',', 'adc', 'x\ny', '😀'];
    const pairs = patterns.flatMap((p) => texts.map((t) => [p, t]));
    const script = 'import fnmatch, json, sys\nprint(json.dumps([fnmatch.fnmatchcase(t, p) for p, t in json.load(sys.stdin)]))';
    const run = spawnSync(hermes().python, ['-c', script], { input: JSON.stringify(pairs), encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const python = JSON.parse(run.stdout) as boolean[];
    const wrong = pairs.filter(([p, t], i) => globMatches(compileGlob(p!), t!) !== python[i]).map(([p, t]) => `${JSON.stringify(p)} on ${JSON.stringify(t)}: Python ${python[pairs.findIndex((x) => x[0] === p && x[1] === t)]}`);
    assert.deepEqual(wrong, []);
  });

  test("str.strip() removes Python's whitespace", () => {
    assert.equal(pythonStrip('\x1c\x85 git push\t\u3000'), 'git push');
    assert.equal(pythonStrip('\ufeffx'), '\ufeffx');
  });
});

describe("the files: the user's config.yaml and the managed scope's", () => {
  function homes() {
    const root = temp.make('hmcp-deny-');
    const hermesHome = join(root, 'hermes');
    const managed = join(root, 'managed');
    mkdirSync(hermesHome);
    mkdirSync(managed);
    return { root, hermesHome, managed, source: new OperatorDenyRules({ hermesHome, hermesManagedDir: managed, inheritedEnvironment: ENV }) };
  }
  const write = (dir: string, deny: string[] | string) => writeFileSync(join(dir, 'config.yaml'), typeof deny === 'string' ? deny : `approvals:\n  deny:\n${deny.map((d) => `    - ${JSON.stringify(d)}\n`).join('')}`);
  const current = (source: OperatorDenyRules) => {
    const r = source.current();
    return 'rules' in r ? r.rules.map((x) => x.glob) : r;
  };

  test('both files apply: Hermes lets a managed list replace the user’s, the gateway never applies fewer rules than either', () => {
    const { hermesHome, managed, source } = homes();
    write(hermesHome, ['git push*']);
    write(managed, ['psql *drop*']);
    assert.deepEqual(current(source), ['git push*', 'psql *drop*']);
    const ctx = { hermesHome, userHome: '/home/x', deny: source };
    assert.deepEqual(checkCommand('git push origin main', ctx), { verdict: 'deny', rule: 'git push*', file: join(hermesHome, 'config.yaml') });
    assert.deepEqual(checkCommand("psql -c 'select 1; drop x'", ctx), { verdict: 'deny', rule: 'psql *drop*', file: join(managed, 'config.yaml') });
  });

  test('a managed scope that is no directory is none (HERMES_MANAGED_DIR set to a missing path, as Hermes reads it)', () => {
    const { root, hermesHome } = homes();
    write(hermesHome, ['git push*']);
    const source = new OperatorDenyRules({ hermesHome, hermesManagedDir: join(root, 'missing'), inheritedEnvironment: ENV });
    assert.deepEqual(source.files(), [join(hermesHome, 'config.yaml')]);
    assert.deepEqual(current(source), ['git push*']);
  });

  test('an edit applies to the next command, without a restart; a symbolic link is followed', () => {
    const { root, hermesHome, managed, source } = homes();
    assert.deepEqual(current(source), []);
    write(hermesHome, ['git push*']);
    assert.deepEqual(current(source), ['git push*']);
    write(hermesHome, ['git push*', 'npm publish*']);
    assert.deepEqual(current(source), ['git push*', 'npm publish*']);
    // Same size, same second: still read again (the signature has nanoseconds, inode and ctime).
    write(hermesHome, ['git push*', 'npm PUBLISH*']);
    utimesSync(join(hermesHome, 'config.yaml'), 1_700_000_000, 1_700_000_000);
    assert.deepEqual(current(source), ['git push*', 'npm PUBLISH*']);
    write(join(root), ['linked*']);
    symlinkSync(join(root, 'config.yaml'), join(managed, 'config.yaml'));
    assert.deepEqual(current(source), ['git push*', 'npm PUBLISH*', 'linked*']);
  });

  test('a file that cannot be parsed keeps the rules last read from it; with none, every command is refused until it is fixed', () => {
    const { hermesHome, source } = homes();
    write(hermesHome, ['git push*']);
    assert.deepEqual(current(source), ['git push*']);
    write(hermesHome, 'approvals:\n  deny: [unclosed\n');
    assert.deepEqual(current(source), ['git push*'], 'the last rules read');

    const fresh = homes();
    write(fresh.hermesHome, 'approvals:\n  deny: [unclosed\n');
    const broken = fresh.source.current();
    assert.ok('problem' in broken);
    assert.match(broken.problem, /config\.yaml cannot be parsed as YAML .*so its approvals\.deny rules cannot be applied/);
    const verdict = checkCommand('ls', { hermesHome: fresh.hermesHome, userHome: '/home/x', deny: fresh.source });
    assert.deepEqual(verdict, { verdict: 'deny', problem: broken.problem });
    write(fresh.hermesHome, ['git push*']);
    assert.deepEqual(checkCommand('ls', { hermesHome: fresh.hermesHome, userHome: '/home/x', deny: fresh.source }), { verdict: 'allow' });
  });

  test('a malformed deny refuses every command, saying why', () => {
    const { hermesHome, source } = homes();
    write(hermesHome, 'approvals:\n  deny: "git push*"\n');
    const verdict = checkCommand('ls -la', { hermesHome, userHome: '/home/x', deny: source });
    assert.equal(verdict.verdict, 'deny');
    assert.ok('problem' in verdict);
    assert.match(verdict.problem, /approvals\.deny in .*config\.yaml must be a list of glob strings, but it is a string/);
  });

  test('hardline and the runtime floor come first, then sudo -S, then the deny rules, then what Hermes would ask about', () => {
    const { hermesHome, source } = homes();
    write(hermesHome, ['*rm *', '*sudo*', '*git reset*']);
    const ctx = { hermesHome, userHome: '/home/x', deny: source };
    assert.deepEqual(checkCommand('rm -rf /', ctx), { verdict: 'hardline', key: 'recursive delete of root filesystem' });
    assert.deepEqual(checkCommand('sudo -S id', ctx), { verdict: 'hardline', key: 'sudo password guessing via stdin (sudo -S)' });
    assert.deepEqual(checkCommand('git reset --hard', ctx), { verdict: 'deny', rule: '*git reset*', file: join(hermesHome, 'config.yaml') });
  });
});
