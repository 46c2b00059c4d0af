export declare const KNOWN_FOLDER_CYCLES: readonly (readonly string[])[];
