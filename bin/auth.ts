#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { EXIT, fail, runAuthCommand } from '../supervisor/http/auth/operator-cli.js';

// hermes-mcp-auth: the operator's side of the gateway's authentication, on the host. This file
// parses the arguments and prints the usage; the commands are supervisor/http/auth/operator-cli.ts,
// which opens the database and audit log the gateway uses, in the gateway's environment.

const HELP: Record<string, string> & { main: string } = {
  main: `Usage: hermes-mcp-auth <command> [options]

Commands:
  approve CODE [--read-only] [--yes]  show the authorization request showing CODE on its consent page; approve it on y (or --yes)
  pending                          list authorization requests waiting for approval
  clients                          list registered OAuth clients
  revoke CLIENT_ID|NAME|TOKEN      revoke an OAuth client (and all its tokens), a static token by name, or one OAuth token
  token create NAME [--scope S]    create a static bearer token (S: read or full, default full); printed once
  token rotate NAME [--scope S]    replace a static token's secret (the old one stops working at once); keeps its scope unless --scope
  token list                       list static tokens (names and scopes, never secrets)

Every command takes --json (machine-readable output) and --help.
Not on PATH in a checkout: run it from there as npm run auth -- COMMAND (npm run -s with --json), or node dist/bin/auth.js COMMAND.
Exit codes: 0 done, 1 failed (configuration, database), 2 usage error, 3 not found (unknown code, client or token), 4 refused (not confirmed, expired, locked, already approved, name taken).`,
  approve: `Usage: hermes-mcp-auth approve CODE [--read-only] [--yes] [--json]
Shows the pending authorization request whose consent page shows CODE (e.g. ABCD-EF23): the client's
name, its redirect URI and the scope it would get. Check them against what you just started, then
answer y to approve. Without a terminal to ask on (or with --json) it only shows them: run it again
with --yes to approve. --read-only grants hermes:read whatever was requested. The person on the page
then presses Continue.
Exit: 0 approved, 3 no such code, 4 not approved (not confirmed, expired, locked or already approved).`,
  pending: `Usage: hermes-mcp-auth pending [--json]
Lists the authorization requests waiting for approval, oldest first: the client's name and id, the
host its redirect URI goes to, the scope it asks for, how long it has waited and when it expires, and
whether it is already approved (waiting for Continue on the consent page). The code itself is only on
the consent page (the gateway stores its hash): approve it with hermes-mcp-auth approve CODE.`,
  clients: 'Usage: hermes-mcp-auth clients [--json]\nLists registered OAuth clients with their redirect URIs and active grants.',
  revoke: `Usage: hermes-mcp-auth revoke CLIENT_ID|NAME|TOKEN [--json]
CLIENT_ID: removes the client and every grant, code and token issued to it. NAME: deletes that static
token. TOKEN: an OAuth access or refresh token; its whole grant is revoked. Exit: 0 revoked, 3 nothing matched.`,
  token: `Usage: hermes-mcp-auth token create NAME [--scope read|full] [--json]
       hermes-mcp-auth token rotate NAME [--scope read|full] [--json]
       hermes-mcp-auth token list [--json]
A static token is 32 random bytes, shown once; the gateway keeps only its SHA-256. Clients send it as
"Authorization: Bearer <token>"; audit lines name it by NAME. rotate keeps the token's scope unless
--scope is given. Exit: 4 when create finds NAME taken or rotate finds no NAME.`,
};

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, 'read-only': { type: 'boolean' }, yes: { type: 'boolean', short: 'y' }, scope: { type: 'string' } } });
  } catch (e) {
    return fail(false, EXIT.usage, 'usage', `${(e as Error).message}\n\n${HELP.main}`);
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const [command, ...rest] = positionals;
  if (!command || command === 'help') {
    process.stdout.write(HELP.main + '\n');
    return command ? EXIT.ok : values.help ? EXIT.ok : EXIT.usage;
  }
  if (!HELP[command]) return fail(json, EXIT.usage, 'usage', `unknown command ${command}\n\n${HELP.main}`);
  if (values.help) {
    process.stdout.write(HELP[command] + '\n');
    return EXIT.ok;
  }
  return runAuthCommand({ command, args: rest, json, readOnly: values['read-only'] === true, yes: values.yes === true, scope: values.scope }, process.env, (name) => HELP[name]!);
}

process.exitCode = main(process.argv.slice(2));
