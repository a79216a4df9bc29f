import * as v from 'valibot';

// The host resource policy's schema (the file HERMES_MCP_RESOURCE_POLICY points at, normally the
// root-owned /etc/hermes-mcp-gateway-resources.json; an example sits beside this file). The host
// fixes every limit: clients only pick a profile name.
//
// Sizes are systemd's notation (base 1024): an integer byte count or digits with K, M, G or T.
// CPU quotas are percentages of one CPU ("200%" = two CPUs), as systemd's CPUQuota=.

const Size = v.pipe(v.string(), v.regex(/^[1-9][0-9]*[KMGT]?$/, 'a size like "512M", "8G" or a byte count'));
const CpuQuota = v.pipe(v.string(), v.regex(/^[1-9][0-9]*%$/, 'a CPU percentage like "100%" or "200%"'));
const Tasks = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000));

/** The limits one unit of work runs under (a job's scope or a short execute_code worker's). */
const ResourceLimitsSchema = v.strictObject({
  memory_max: Size,
  cpu_quota: CpuQuota,
  tasks_max: Tasks,
});

export const ResourcePolicySchema = v.strictObject({
  version: v.literal(1),
  profiles: v.strictObject({
    light: ResourceLimitsSchema,
    heavy: ResourceLimitsSchema,
  }),
  short_workers: ResourceLimitsSchema,
  jobs: v.strictObject({
    /** Sum of the active jobs' memory_max that admission may reserve (unknown jobs included). */
    memory_budget: Size,
    /** Memory the host keeps free: a job starts only while MemAvailable covers its memory_max plus this. */
    host_headroom: Size,
    /** Heavy jobs active at once. */
    max_heavy: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(64)), 1),
  }),
});

export type ResourceLimits = v.InferOutput<typeof ResourceLimitsSchema>;
export type ResourcePolicy = v.InferOutput<typeof ResourcePolicySchema>;
export type ResourceProfile = keyof ResourcePolicy['profiles'];
export const RESOURCE_PROFILES: readonly ResourceProfile[] = ['light', 'heavy'];
export const DEFAULT_RESOURCE_PROFILE: ResourceProfile = 'heavy';

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Bytes of a schema-valid size string. */
export function sizeBytes(size: string): number {
  const m = /^([0-9]+)([KMGT]?)$/.exec(size);
  if (!m) throw new Error(`not a size: ${size}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}
