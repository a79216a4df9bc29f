import { run, toolCall } from './connect.js';

// execute_code: a Python script in a fresh isolated unit; it calls the gateway's own tools through hermes_tools.
const CODE = `from hermes_tools import terminal
print(6 * 7, terminal("python3 greet.py")["output"])`;

run(async (client) => {
  const result = await toolCall(client, 'execute_code', { code: CODE });
  console.log(`status ${String(result.status)}:`);
  console.log(String(result.output));
});
