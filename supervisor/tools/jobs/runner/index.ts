// The job runner: launches admitted jobs on this gateway process, stops them, and keeps every
// receipt true, its own jobs' and those of gateway processes that are gone.

export { JobRunner } from './runner.js';
