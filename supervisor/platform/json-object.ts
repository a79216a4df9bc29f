// A JSON object as parsed or as a schema holds it: an object that is neither null nor an array.

/** `v` is a JSON object (not null, not an array). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `text` parsed, when it is a JSON object; undefined when it does not parse or is any other value. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}
