import { run, toolCall } from './connect.js';

// terminal needs a durable owner: session_open gives a token, passed beside calls as session_token.
// The command runs in the project root (the demo's tests: `python3 -m unittest -v`).
run(async (client) => {
  const { session_token: token } = await toolCall(client, 'session_open');
  const command = process.env.EXAMPLE_COMMAND ?? 'python3 -m unittest -v';
  const result = await toolCall(client, 'terminal', { command }, String(token));
  console.log(`$ ${command}  (exit ${String(result.exit_code)})`);
  console.log(String(result.output));
  await toolCall(client, 'session_close', {}, String(token));
});
