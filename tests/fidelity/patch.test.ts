import { compareEditSurface } from './edit-files.js';

// patch against Hermes' patch_tool (tools/file_tools.py), over MCP and through hermes_tools: the result
// and the files it leaves (cases/patch.yaml; each case edits fresh copies of its files).

compareEditSurface('patch', 'patch', 'patch.py');
