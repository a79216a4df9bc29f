import { GatewayError } from '../../../shared/errors.js';
import { visionRefusal, type VisionAnalyzer } from '../browser/index.js';
import { resultValue, type ToolServerCall } from './tools.js';

// browser_vision's analysis step through the tool server's vision_analyze, on the screenshot file
// browser_vision saved, as Hermes' own browser_vision hands its screenshot to the auxiliary vision
// model. With annotate, the snapshot excerpt goes along in the question so the model can match
// what it sees to the @eN refs. The analysis is Hermes' `analysis` string; a result without one
// ({"success": false, "error": ...}) refuses with VISION_UNAVAILABLE and Hermes' reason.

export function toolServerVision(deps: { offered: () => boolean; notOffered: () => string; call: ToolServerCall }): VisionAnalyzer {
  return {
    available: deps.offered,
    async analyze(request) {
      if (!deps.offered()) throw visionRefusal(request.screenshotPath, deps.notOffered());
      const question = request.annotation
        ? `${request.question}\n\nThe page's accessibility snapshot (elements with their @eN refs), to relate what you see to refs:\n${request.annotation}`
        : request.question;
      let value: Record<string, unknown> | undefined;
      try {
        const result = await deps.call('vision_analyze', { image_url: request.screenshotPath, question }, undefined, request.signal);
        value = result.isError ? undefined : resultValue(result).value;
        if (!value) throw new Error(`vision_analyze answered without Hermes' result${result.isError ? ' (an error result)' : ''}`);
      } catch (e) {
        // The tool server's own failure keeps its code (a timeout, a crash); the screenshot path goes along.
        if (e instanceof GatewayError) throw new GatewayError(e.code, e.message, { ...e.details, screenshot_path: request.screenshotPath });
        throw visionRefusal(request.screenshotPath, (e as Error).message);
      }
      if (value.success === false || typeof value.analysis !== 'string') {
        const why = typeof value.error === 'string' ? value.error : 'no analysis came back';
        throw visionRefusal(request.screenshotPath, `Hermes' vision_analyze could not analyse it: ${why}`);
      }
      return value.analysis;
    },
  };
}
