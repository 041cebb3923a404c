export declare const SCHEMA_FILE: URL;
export declare function generateTypes(document: string | object): Promise<string>;
