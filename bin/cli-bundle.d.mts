export declare const OUT_DIR: string;
export declare const MANIFEST: string;
export declare function sourcesHash(root: string, files: string[]): string;
export declare function sourceStamps(root: string, files: string[]): string[];
export declare function freshness(root: string): "stamps" | "hash" | null;
export declare function bundleIfFresh(root: string): string | null;
