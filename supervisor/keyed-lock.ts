// The keyed lock lives in shared/ (the LSP worker serialises document updates with it too).
export { withKeyedLocks } from '../shared/keyed-lock.js';
