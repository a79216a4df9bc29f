// What the file tools share below their own folders: binary detection, text encodings, writes to
// disk, failures, which Hermes release the tools follow, and the repair of their integer arguments.
export * from './file-kind.js';
export * from './disk.js';
export * from './errors.js';
export * from './follows.js';
export * from './text.js';
export * from './sequence-matcher.js';
export * from './pagination.js';
