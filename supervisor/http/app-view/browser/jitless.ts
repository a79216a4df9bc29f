import { config } from 'zod/v4/core';

// zod (which ext-apps and the MCP SDK it bundles bring in) asks once whether it may compile
// parsers with `new Function("")`, when the first object schema is built: at module load, before
// ext-apps' App sets `jitless` itself. The view's CSP has no 'unsafe-eval', so the probe is refused,
// and a refused eval is reported (a `securitypolicyviolation` event, a console error, a CSP report
// to the host) even though zod catches it. With `jitless` set first, zod never probes. This module
// is main.ts's first import: ES modules run in import order, so it runs before any schema exists.
config({ jitless: true });
