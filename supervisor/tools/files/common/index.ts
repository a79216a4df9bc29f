// What the file tools share below their own folders: binary detection, text encodings, writes to
// disk, failures, and which Hermes release the tools follow.
export * from './file-kind.js';
export * from './disk.js';
export * from './errors.js';
export * from './follows.js';
export * from './text.js';
export * from './sequence-matcher.js';
