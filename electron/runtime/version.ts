import packageJson from '../../package.json' with { type: 'json' };

/** Version reported by `initialize` and stored on every thread (`cliVersion`): package.json's, the only copy. */
export const WHEELHOUSE_VERSION: string = packageJson.version;
