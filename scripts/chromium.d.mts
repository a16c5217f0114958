import type {Browser, LaunchOptions} from 'playwright';
export declare const CHROMIUM_ARGS: string[];
export declare const HOW_TO_GET_CHROMIUM: string;
export declare function chromiumExecutable(): Promise<string | undefined>;
export declare function chromiumLaunchOptions(extra?: LaunchOptions): Promise<LaunchOptions>;
export declare function launchChromium(extra?: LaunchOptions): Promise<Browser>;
