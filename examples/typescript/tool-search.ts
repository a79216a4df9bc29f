import { run } from './connect.js';

// tool_search: the deferred tools that match a need (then tool_describe for their schemas, tool_call to run one).
run(async (client) => {
  const result = await client.callTool({ name: 'tool_search', arguments: { queries: ['read a file', 'run a long build'] } });
  const found = result.structuredContent as { total_available: number; results: Array<{ query: string; matches: string[] }> };
  console.log(`${found.total_available} deferred tools; best matches:`);
  for (const { query, matches } of found.results) console.log(`  ${query}: ${matches.join(', ')}`);
});
