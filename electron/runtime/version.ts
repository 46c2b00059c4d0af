/** Version reported by `initialize` and stored on every thread (`cliVersion`). */
export const WHEELHOUSE_VERSION = '0.1.0';
