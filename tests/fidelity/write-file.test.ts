import { compareEditSurface } from './edit-files.js';

// write_file against Hermes' write_file_tool (tools/file_tools.py), over MCP and through hermes_tools: the result
// and the files it leaves (cases/write_file.yaml; each case edits fresh copies of its files).

compareEditSurface('write_file', 'write_file', 'write_file.py');
