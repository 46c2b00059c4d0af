/** The Codex protocol version Wheelhouse speaks (the reference schema's version). */
export const CODEX_PROTOCOL_VERSION = '0.169.0';
