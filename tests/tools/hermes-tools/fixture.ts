import { after, before } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connect } from '../../helpers/gateway.js';
import { toolServerReadiness } from '../../helpers/hermes-tools.js';
import { startRealTools, type RealTools, type RealToolsOptions } from '../../helpers/real-hermes-tools.js';
import { tempDirs } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// Shared fixture for the tests on Hermes' real tool server: a gateway in front of it (in a fresh
// directory), and a modern client of that gateway.

export interface RealToolsSuite {
  readonly real: RealTools;
  readonly client: Client;
}

/**
 * Opens a RealToolsSuite before the file's tests and closes the client, the gateway and the
 * directory after them. `webReady`: before the tests, wait (up to 60 s) until /readyz.web_provider
 * is past `starting`, i.e. the web smoke calls are done and will not interleave with a test's calls.
 */
export function realToolsSuite(prefix: string, options: RealToolsOptions = {}, { webReady = false }: { webReady?: boolean } = {}): RealToolsSuite {
  const temp = tempDirs();
  let real: RealTools | undefined;
  let client: Client | undefined;
  before(async () => {
    real = await startRealTools(temp.make(prefix), options);
    client = await connect(real.gw.mcpUrl, 'modern');
    if (webReady) {
      const url = real.gw.url;
      await waitFor(async () => (await toolServerReadiness(url)).web.status !== 'starting', 60_000, 'the smoke calls done');
    }
  });
  after(async () => {
    await client?.close();
    await real?.close();
    temp.removeAll();
  });
  const open = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error('the real tool server suite is not open (used outside its tests)');
    return part;
  };
  return {
    get real() { return open(real); },
    get client() { return open(client); },
  };
}
