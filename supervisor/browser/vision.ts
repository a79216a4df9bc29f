import { ErrorCode, GatewayError } from '../../shared/errors.js';

// The seam between browser_vision's screenshot step (done here, against Camofox) and its analysis
// step, which in Hermes is the auxiliary vision model (tools/browser_camofox.py camofox_vision →
// agent.auxiliary_client.call_llm). That model is reached through Hermes' own tool server, which
// this build does not start yet: the adapter for it will implement VisionAnalyzer. Until then the
// analysis step refuses with VISION_UNAVAILABLE; it never makes up an analysis.

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
  /** The model's answer to the question about the screenshot. */
  analyze(request: VisionRequest): Promise<string>;
}

/** The analyzer of a build without Hermes' vision path. */
export const visionUnavailable: VisionAnalyzer = {
  analyze(request) {
    return Promise.reject(
      new GatewayError(
        ErrorCode.VISION_UNAVAILABLE,
        `the screenshot was taken and saved to ${request.screenshotPath}, but this gateway has no vision model to analyse it yet (Hermes' vision path is not connected); use browser_snapshot for the page's text and refs`,
        { screenshot_path: request.screenshotPath, retryable: false, recovery: 'browser_snapshot' },
      ),
    );
  },
};
