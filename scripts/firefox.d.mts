import type {Browser, LaunchOptions} from 'puppeteer-core';
export declare const HOW_TO_GET_FIREFOX: string;
export declare const PAGE_FONTS: Readonly<Record<'serif' | 'sans-serif' | 'monospace', string>>;
export declare const FIREFOX_PREFS: Readonly<Record<string, string | number | boolean>>;
export declare function firefoxExecutable(): string;
export declare function firefoxLaunchOptions(extra?: LaunchOptions): LaunchOptions;
export declare function launchFirefox(extra?: LaunchOptions): Promise<Browser>;
