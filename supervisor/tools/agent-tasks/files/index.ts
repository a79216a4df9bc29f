import type { ToolDefinition } from '../../../core/tool-types.js';
import { ID, READ_ONLY } from '../schema.js';
import { serviceOf, type BridgeState } from '../service.js';
import { readTaskPath } from './read.js';

// hermes_files: a read-only look into one task's directory.

export function hermesFilesTool(state: BridgeState): ToolDefinition {
  return {
    name: 'hermes_files',
    description:
      "Read-only access to a task's directory: without `path` (or for a directory) a listing {entries, count, truncated}; for a file its UTF-8 text {size, mtime, encoding, content} up to the file cap. Paths are relative; .., absolute paths, backslashes and symlinks are refused.",
    inputSchema: {
      type: 'object',
      properties: { id: ID, path: { type: 'string', maxLength: 4096, description: 'Relative path inside the task directory (default: the directory itself).' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    handler: async (args) => {
      const service = serviceOf(state);
      const id = args.id as string;
      const limits = { maxBytes: service.limits.bridgeFileMaxBytes, maxEntries: service.limits.bridgeListMaxEntries };
      return { structured: readTaskPath(service.store.taskDir(id), id, (args.path as string | undefined) ?? '', limits) };
    },
    // The file's text reaches the client redacted: say so when that changed it, so a reader never
    // takes the masked copy for the file itself.
    afterRedaction: (redacted, raw) => (typeof raw.content === 'string' && redacted.content !== raw.content ? { ...redacted, redacted: true } : redacted),
  };
}
