import type { FailedTest } from './mutation-corpus.js';

// The node:test reporter of a mutant run (scripts/mutation-test.ts, `--test-reporter`): one JSON
// line per failed test (its name, node's failureType, the code of what it threw and the message),
// which mutation-corpus.ts judgeRun reads to tell a fidelity verdict from a run that broke.

interface FailEvent {
  type: string;
  data: { name?: string; nesting?: number; details?: { error?: Error & { failureType?: string; code?: string; cause?: unknown } } };
}

export default async function* mutationReporter(source: AsyncIterable<FailEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    const cause = error?.cause as (Error & { code?: string }) | undefined;
    const failed: FailedTest = {
      name: event.data.name ?? '',
      ...(error?.failureType !== undefined ? { failureType: error.failureType } : {}),
      ...(typeof cause?.code === 'string' ? { code: cause.code } : {}),
      message: String(cause?.message ?? error?.message ?? ''),
    };
    yield JSON.stringify(failed) + '\n';
  }
}
