// Types of supported-node.mjs, for the tests that import it.
export declare const ENGINES: string;
export declare function unsupportedNodeLine(version?: string): string | null;
export declare function requireSupportedNode(): void;
