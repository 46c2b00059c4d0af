/** The line module-trace.mjs writes to the trace at the process's first write to stdout. */
export declare const FIRST_OUTPUT: string;
