/** Builds dist-cli unless it is already built from the current sources; resolves to whether it built. */
export declare function buildCli(options?: { force?: boolean }): Promise<boolean>;
