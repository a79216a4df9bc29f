import { run, toolCall } from './connect.js';

// read_file through tool_call: a relative path starts at the project root (the demo's holds README.md).
run(async (client) => {
  const file = await toolCall(client, 'read_file', { path: process.env.EXAMPLE_FILE ?? 'README.md' });
  console.log(`${String(file.total_lines)} lines:`);
  console.log(String(file.content));
});
