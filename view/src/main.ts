import { App } from '@modelcontextprotocol/ext-apps';

const app = new App({ name: 'hermes-mcp-gateway-view', version: '1.0.0' });
void app.connect();
