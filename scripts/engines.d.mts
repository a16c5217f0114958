export type Engine = 'chromium' | 'firefox' | 'webkit';
export declare const ENGINES: readonly Engine[];
export declare function selectedEngines(value?: string): Engine[];
export declare function checkEngines(engines?: readonly Engine[]): Promise<void>;
