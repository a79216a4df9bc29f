// execute_code's tool RPC: the socket a script's hermes_tools calls, and what its calls become.

export { startRpcServer, type RpcServer, type RpcServerOptions } from './server.js';
export { rpcReplyFor, scriptToolDispatch, type RpcDispatch } from './script-tools.js';
