import { ErrorCode, GatewayError } from '../../../shared/errors.js';

// The seam between browser_vision's screenshot step (done here, against Camofox) and its analysis
// step, which in Hermes is the auxiliary vision model (tools/browser_camofox.py camofox_vision →
// agent.auxiliary_client.call_llm). This gateway reaches that model through Hermes' own tool
// server's vision_analyze (supervisor/tools/hermes-tools/vision.ts). Without it the analysis step
// refuses with VISION_UNAVAILABLE; it never makes up an analysis.

export interface VisionRequest {
  /** The screenshot, PNG bytes. */
  png: Buffer;
  /** Where it was saved ($HERMES_HOME/browser_screenshots/…), for the caller to share. */
  screenshotPath: string;
  question: string;
  /** With annotate: the first 3,000 characters of the snapshot (redacted), for ref ↔ element mapping. */
  annotation?: string;
  signal: AbortSignal;
}

export interface VisionAnalyzer {
  /** Whether analysis can work in this process (fixed once the catalog is frozen): descriptions say so. */
  available(): boolean;
  /** The model's answer to the question about the screenshot. */
  analyze(request: VisionRequest): Promise<string>;
}

/** The refusal of an analysis step that cannot run, keeping the screenshot for the caller. */
export function visionRefusal(screenshotPath: string, why: string): GatewayError {
  return new GatewayError(ErrorCode.VISION_UNAVAILABLE, `the screenshot was taken and saved to ${screenshotPath}, but ${why}; use browser_snapshot for the page's text and refs`, {
    screenshot_path: screenshotPath,
    retryable: false,
    recovery: 'browser_snapshot',
  });
}

/** The analyzer of a gateway without Hermes' vision path. */
export const visionUnavailable: VisionAnalyzer = {
  available: () => false,
  analyze(request) {
    return Promise.reject(visionRefusal(request.screenshotPath, "this gateway has no vision model to analyse it (Hermes' tool server does not serve vision_analyze here)"));
  },
};
