import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { processStartTime } from '../../../shared/proc.js';
import { connect, startTestGateway } from '../../helpers/gateway.js';
import { inspect, standIn } from '../../helpers/graph.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The graph upstreams are children of the graph worker, inside its PID namespace: when the gateway
// closes, every upstream it started is gone, the resident idle ones and one in the middle of a call.

const dirs = tempDirs();
test.after(() => dirs.removeAll());

test('after the gateway closes, no graph upstream and no graph worker is left', async () => {
  const root = realpathSync(dirs.make('hmcp-graph-root-'));
  for (const name of ['a', 'b']) mkdirSync(join(root, name));
  const up = standIn(dirs.make('hmcp-graph-rec-'));
  const gw = await startTestGateway({ env: { HERMES_MCP_ROOTS: root, HERMES_MCP_GRAPH_COMMAND: up.command } });
  const client = await connect(gw.mcpUrl, 'modern');
  assert.equal((await inspect(client, join(root, 'a'), { request: { type: 'lookup' } })).isError, false);
  const inFlight = inspect(client, join(root, 'b'), { question: 'sleep:30000', request: { type: 'lookup' } }).catch(() => undefined);
  await waitFor(() => up.live().length === 3, 5000, 'three upstreams: the schema root, a, and b mid-call');
  const upstreams = up.live();
  const worker = gw.graph.worker.pid!;
  const workerStart = processStartTime(worker);
  await client.close();
  await gw.close();
  await waitFor(() => up.live().length === 0, 2000, `the upstreams ${JSON.stringify(upstreams)} to be gone`);
  assert.ok(workerStart === undefined || processStartTime(worker) !== workerStart, 'the graph worker is gone');
  await inFlight;
});
