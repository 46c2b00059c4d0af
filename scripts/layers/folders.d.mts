export declare const LAYERED_ROOTS: readonly string[];
export declare function folderOf(relativeFile: string): string | null;
export declare function isTestFile(file: string): boolean;
export declare function importSpecifiers(text: string): string[];
/** Folder → folder it imports → one import that makes the edge. */
export type FolderGraph = Map<string, Map<string, string>>;
export declare function folderGraph(repoRoot: string): FolderGraph;
export declare function folderCycles(graph: FolderGraph): string[][];
export declare function cycleThrough(graph: FolderGraph, component: readonly string[], start?: string): { from: string; to: string; via: string }[];
export declare function cycleProblems(graph: FolderGraph, allowed: readonly (readonly string[])[]): string[];
