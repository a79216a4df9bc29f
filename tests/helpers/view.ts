import { buildView } from '../../scripts/build-view.js';
import { viewHtmlPath } from '../../supervisor/http/app-view/resource.js';

// The result view is bundled by `npm run build` (scripts/build-view.ts); a test that serves it
// bundles it again from supervisor/http/app-view/browser first, so an incremental tsc build tests the current sources.
let built: Promise<string> | undefined;
export function ensureViewBuilt(): Promise<string> {
  built ??= buildView(viewHtmlPath());
  return built;
}
