/** The marker an MCP error carries when the gateway itself refused the call (allow-list, user access): logged as a 403. */
export const DENIED = 'denied';
