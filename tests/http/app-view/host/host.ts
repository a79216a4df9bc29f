import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';

// A minimal MCP Apps host for the view's browser tests (tests/http/app-view/): ext-apps' own
// AppBridge, the view in a sandboxed iframe (scripts only: no same origin, no forms, no popups),
// and every tool call the view makes handed to the test process (window.hostCallTool), which
// sends it to the real gateway with the host's own credential.

type CallToolParams = { name: string; arguments?: Record<string, unknown> };
type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

declare global {
  interface Window {
    hostCallTool(params: CallToolParams): Promise<ToolResult>;
    host: {
      load(html: string, theme: 'light' | 'dark', prefersBorder: boolean): Promise<void>;
      deliver(input: Record<string, unknown>, result: ToolResult): Promise<void>;
      setTheme(theme: 'light' | 'dark'): Promise<void>;
      hide(): Promise<void>;
    };
  }
}

const LIGHT = { '--color-background-primary': '#ffffff', '--color-text-primary': '#111827', '--font-sans': 'DejaVu Sans, sans-serif' };
const DARK = { '--color-background-primary': '#111827', '--color-text-primary': '#f9fafb', '--font-sans': 'DejaVu Sans, sans-serif' };

let bridge: AppBridge | undefined;
let frame: HTMLIFrameElement | undefined;

function context(theme: 'light' | 'dark'): McpUiHostContext {
  return { theme, displayMode: 'inline', platform: 'web', styles: { variables: (theme === 'dark' ? DARK : LIGHT) as never } };
}

window.host = {
  async load(html, theme, prefersBorder) {
    document.body.style.background = theme === 'dark' ? '#0b0f19' : '#f3f4f6';
    frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    // A view that prefers a border gets the host's, around the frame, as hosts draw it.
    frame.style.cssText = `width: 100%; height: 0; display: block; box-sizing: content-box; ${prefersBorder ? 'border: 1px solid #d1d5db; border-radius: 12px;' : 'border: 0;'}`;
    document.getElementById('frame')!.replaceChildren(frame);
    bridge = new AppBridge(null, { name: 'view-test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext: context(theme) });
    bridge.oncalltool = async (params) => (await window.hostCallTool({ name: params.name, arguments: params.arguments })) as never;
    bridge.onsizechange = ({ height }) => {
      if (frame && height !== undefined) frame.style.height = `${height}px`;
    };
    const initialized = new Promise<void>((resolve) => (bridge!.oninitialized = () => resolve()));
    await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
    frame.srcdoc = html;
    await initialized;
  },
  async deliver(input, result) {
    await bridge!.sendToolInput({ arguments: input });
    await bridge!.sendToolResult(result as never);
  },
  async setTheme(theme) {
    document.body.style.background = theme === 'dark' ? '#0b0f19' : '#f3f4f6';
    await bridge!.sendHostContextChange(context(theme));
  },
  async hide() {
    await bridge!.teardownResource({});
  },
};
