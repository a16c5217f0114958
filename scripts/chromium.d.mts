import type {Browser, LaunchOptions} from 'playwright';
export declare const CHROMIUM_ARGS: string[];
export declare const HOW_TO_GET_CHROMIUM: string;
export declare function chromiumExecutable(): Promise<string | undefined>;
export declare function chromiumLaunchOptions(extra?: LaunchOptions): Promise<LaunchOptions>;
export declare function launchChromium(extra?: LaunchOptions): Promise<Browser>;
export declare const SHARED_CHROMIUM_ENV: string;
export declare function launchChromiumServer(
  extra?: LaunchOptions,
): Promise<import('playwright').BrowserServer>;
export declare function sharedChromium(): Promise<Browser>;
