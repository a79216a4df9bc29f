import { threadId } from 'node:worker_threads';

// A task module for the supervisor's thread pool: answers which thread ran it, after `waitMs`.

export default async function run(input: { waitMs: number }): Promise<number> {
  await new Promise((r) => setTimeout(r, input.waitMs));
  return threadId;
}
