import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect, type Era } from '../../helpers/gateway.js';
import { startMemoryGateway, type MemoryGateway } from '../../helpers/memory.js';

// Shared fixture for the memory tools over MCP: a gateway whose honcho.json points at the Honcho
// stand-in (seeded), checked after the tests to have seen only documented answers.

export interface MemorySuite {
  readonly gw: MemoryGateway['gw'];
  readonly standin: MemoryGateway['standin'];
  /** Calls the stand-in received whose method and path match. */
  callsTo: MemoryGateway['callsTo'];
  /** Runs `use` with a client of the suite's gateway in `era`, closed after it whatever it does. */
  withClient<T>(era: Era, use: (client: Client) => Promise<T>): Promise<T>;
}

/** Opens a MemorySuite before the file's (or describe block's) tests and closes it after them. */
export function memorySuite(): MemorySuite {
  let m: MemoryGateway | undefined;
  before(async () => {
    m = await startMemoryGateway();
  });
  after(async () => {
    if (!m) return;
    assert.deepEqual(m.standin.violations, [], 'the stand-in saw only documented answers');
    await m.close();
  });
  const open = (): MemoryGateway => {
    if (!m) throw new Error('the memory suite is not open (used outside its tests)');
    return m;
  };
  return {
    get gw() { return open().gw; },
    get standin() { return open().standin; },
    callsTo: (method, path) => open().callsTo(method, path),
    async withClient(era, use) {
      const client = await connect(open().gw.mcpUrl, era);
      try {
        return await use(client);
      } finally {
        await client.close();
      }
    },
  };
}
