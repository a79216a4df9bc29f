#!/usr/bin/env node
// hermes-mcp-admission: the operator's handle on the job admission gate, for maintenance windows.
// This file parses the arguments and prints the usage; the commands are supervisor/tools/jobs/
// admission/cli.ts (status, drain, resume, snapshot) and admission/reconcile.ts (reconcile).
//
// Exit codes: 0 done; 1 refused or failed (stderr says `CODE: message`); 2 usage error;
// 3 drain timed out, with admission left paused (fail closed: the operator decides what next).
// reconcile --apply exits 1 when an unknown job could not be released (something of it survived).
import { parseArgs } from 'node:util';
import { ErrorCode, isGatewayError } from '../shared/errors.js';
import { loadLimits } from '../shared/limits.js';
import { defaultJobsDatabase } from '../supervisor/platform/config.js';
import { gatewayEnvironment } from '../supervisor/platform/environment.js';
import { drain, EXIT_FAILED, EXIT_USAGE, ownerToken, reconcile, resume, runOnJobDatabase, snapshot, status, UsageError, type AdmissionRun } from '../supervisor/tools/jobs/admission/index.js';

const COMMON = '[--database PATH] [--json]';
const USAGE: Record<string, string> = {
  status: `hermes-mcp-admission status ${COMMON}\n  Gate state, job counts by state and the active jobs (never tokens or commands).`,
  drain:
    `hermes-mcp-admission drain ${COMMON} (--owner-token-file F | --owner-token T) [--timeout SECONDS] [--reason TEXT]\n` +
    '  Pauses admission under T, then waits until no job is starting, running or unknown\n' +
    '  (prepared jobs do not block). On timeout (default drainTimeoutSeconds) exits 3 and\n' +
    '  admission stays paused; interrupting it also leaves admission paused.',
  resume: `hermes-mcp-admission resume ${COMMON} (--owner-token-file F | --owner-token T)\n  Reopens admission; only the token that paused it may. Prefer --owner-token-file (a chmod 600\n  file of yours): a token on the command line is visible to other local users in ps.`,
  snapshot: `hermes-mcp-admission snapshot ${COMMON} --output PATH\n  Consistent copy of the job database, as it is (read-only, never migrated),\n  into a new 0600 file.`,
  reconcile:
    `hermes-mcp-admission reconcile ${COMMON} [--job ID] [--apply]\n` +
    '  Lists the unknown jobs (left by a gateway that was killed) that hold job capacity and their\n' +
    '  workspaces, and what of each still runs. A dry run unless --apply: then each is released as\n' +
    '  job_cancel releases one (whatever of it remains is killed first; its direct cgroup under\n' +
    '  $HERMES_MCP_CGROUP_ROOT too), recorded cancelled (operator_reconciled) with one audit line in\n' +
    '  DATABASE-audit.jsonl. No recovery token needed: this is the way out when nobody holds them.',
};
// Said in every usage text: where the database is, what the owner token is and how to make one,
// and that a value may begin with '-' (a base64url owner token does one time in 64).
const NOTES = [
  '  --database defaults to $HERMES_MCP_JOBS_DATABASE, else $HERMES_HOME/gateway-jobs.sqlite3',
  '  (HERMES_HOME defaulting to ~/.hermes): the database the gateway itself uses.',
  '  The owner token is a secret you create: 32-128 characters from A-Z a-z 0-9 . _ ~ + / = -.',
  '  The token that pauses admission is the only one that can reopen it. Make one, private:',
  '    (umask 077; mkdir -p ~/.config/hermes && head -c 33 /dev/urandom | base64 > ~/.config/hermes/admission-token)',
  '  and pass --owner-token-file ~/.config/hermes/admission-token (a token on the command line is',
  '  visible to other local users in ps).',
  "  The argument after an option is always its value, even one beginning with '-'; --owner-token=T always works.",
  '  Not on PATH in a checkout: run it from there as npm run admission -- ARGS, or node dist/bin/admission.js ARGS.',
].join('\n');
const TOP_USAGE = `usage:\n${Object.values(USAGE).map((u) => `  ${u.replace(/\n/g, '\n  ')}`).join('\n')}\n  -h, --help on any subcommand prints its usage.\n${NOTES}\n`;

type Values = Record<string, string | boolean | undefined>;

function required(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

const given = (values: Values, name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
const token = (values: Values): string => ownerToken({ file: given(values, 'owner-token-file'), token: given(values, 'owner-token') });

const str = { type: 'string' } as const;

// Each subcommand accepts only its own flags (a misplaced one is an error, not ignored) and turns
// them into a runner before the database is opened, so usage errors never depend on the store.
const COMMANDS: Record<string, { flags: FlagSpec; asIs?: boolean; prepare(values: Values, database: string): AdmissionRun }> = {
  status: { flags: {}, prepare: () => status },
  drain: {
    flags: { 'owner-token': str, 'owner-token-file': str, timeout: str, reason: str },
    prepare(values) {
      const owner = token(values);
      const timeout = typeof values.timeout === 'string' ? values.timeout : String(loadLimits(process.env).drainTimeoutSeconds);
      if (!/^[1-9][0-9]{0,6}$/.test(timeout)) throw new UsageError('--timeout must be a whole number of seconds, at least 1');
      const reason = typeof values.reason === 'string' ? values.reason : 'operator drain';
      // The reason reaches agents in JOB_ADMISSION_PAUSED, so keep it one short line.
      if (reason.length > 200 || /[\x00-\x1f\x7f]/.test(reason)) throw new UsageError('--reason must be one line of at most 200 characters');
      return (db, out) => drain(db, out, owner, Number(timeout), reason);
    },
  },
  resume: {
    flags: { 'owner-token': str, 'owner-token-file': str },
    prepare(values) {
      const owner = token(values);
      return (db, out) => resume(db, out, owner);
    },
  },
  snapshot: {
    flags: { output: str },
    // Read-only, never migrated: a snapshot taken before an upgrade keeps the schema the earlier version reads.
    asIs: true,
    prepare(values) {
      const output = required(values, 'output');
      return (db, out) => snapshot(db, out, output);
    },
  },
  reconcile: {
    flags: { job: str, apply: { type: 'boolean' } },
    prepare(values, database) {
      const jobId = typeof values.job === 'string' ? values.job : undefined;
      const cgroupRoot = process.env.HERMES_MCP_CGROUP_ROOT;
      return (db, out) => reconcile(db, out, { database, apply: values.apply === true, ...(jobId ? { jobId } : {}), ...(cgroupRoot ? { cgroupRoot } : {}) });
    },
  },
};

type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * parseArgs, strict about names and shapes, but an option that takes a value always takes the next
 * argument, as getopt does. (parseArgs' own strict mode rejects `--owner-token -abc` as ambiguous,
 * and a base64url owner token begins with '-' one time in 64.)
 */
function parseFlags(args: string[], options: FlagSpec): Values {
  const { values, tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'positional') throw new UsageError(`unexpected argument ${JSON.stringify(t.value)}`);
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!spec) throw new UsageError(`unknown option ${t.rawName}`);
    if (spec.type === 'string' && t.value === undefined) throw new UsageError(`${t.rawName} needs a value`);
    if (spec.type === 'boolean' && t.value !== undefined) throw new UsageError(`${t.rawName} takes no value`);
  }
  return values;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '-h' || name === '--help') {
    process.stdout.write(TOP_USAGE);
    return 0;
  }
  try {
    const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(name === undefined ? 'a subcommand is required' : `unknown subcommand ${JSON.stringify(name)}`);
    const values = parseFlags(rest, { ...command.flags, database: str, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      process.stdout.write(`usage: ${USAGE[name!]}\n${NOTES}\n`);
      return 0;
    }
    const database = typeof values.database === 'string' ? required(values, 'database') : defaultJobsDatabase(gatewayEnvironment(process.env).env);
    return await runOnJobDatabase(database, values.json === true, command.prepare(values, database), { asIs: command.asIs === true });
  } catch (e) {
    if (e instanceof UsageError) {
      const usage = name !== undefined && Object.hasOwn(USAGE, name) ? `usage: ${USAGE[name]}\n` : TOP_USAGE;
      process.stderr.write(`${ErrorCode.INVALID_ARGUMENTS}: ${e.message}\n${usage}`);
      return EXIT_USAGE;
    }
    const code = isGatewayError(e) ? e.code : ErrorCode.INTERNAL_ERROR;
    process.stderr.write(`${code}: ${(e as Error).message}\n`);
    return EXIT_FAILED;
  }
}

process.exitCode = await main(process.argv.slice(2));
