import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { packageRoot } from '../../../shared/package-root.js';

// tool_search's curated keywords are data (policy/search-keywords.json), keyed by tool name so they
// also reach tools whose definitions come from upstream (Hermes' own tools). A name that is not
// catalogued on this host is simply unused; a malformed file fails startup.

const Name = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/));
const Keyword = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const SearchKeywordsSchema = v.record(Name, v.array(Keyword));

export function loadSearchKeywords(file = join(packageRoot(), 'policy', 'search-keywords.json')): ReadonlyMap<string, readonly string[]> {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  delete raw.$comment;
  return new Map(Object.entries(v.parse(SearchKeywordsSchema, raw)));
}
