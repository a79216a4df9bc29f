import { run } from './connect.js';

// tools/list: the gateway's six public tools (everything else is found through tool_search).
run(async (client) => {
  const { tools } = await client.listTools();
  for (const tool of tools) console.log(`${tool.name}: ${(tool.description ?? '').split('\n')[0]!.slice(0, 100)}`);
});
