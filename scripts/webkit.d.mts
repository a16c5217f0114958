import type {Browser} from 'webdriverio';
export declare const HOW_TO_GET_WEBKIT: string;
export declare const HOW_TO_GET_XVFB: string;
export declare function webkitDriverExecutable(): string;
export declare function xvfbExecutable(): string;
export declare function webkitBrowserExecutable(): string;
export declare function webkitExecutables(): {driver: string; browser: string; xvfb: string};
export declare function startXvfb(): Promise<{display: string; close(): Promise<void>}>;
export declare function startWebKitDriver(
  display: string,
): Promise<{port: number; close(): Promise<void>}>;
export declare function webkitCapabilities(): WebdriverIO.Capabilities;
export declare function launchWebKit(options?: {
  display?: string;
  capabilities?: WebdriverIO.Capabilities;
}): Promise<{browser: Browser; display: string; close(): Promise<void>}>;
type KeyActions = Array<{type: 'key'; id: string; actions: Array<{type: string; value: string}>}>;
export declare function typeActions(text: string): KeyActions;
export declare function pressActions(combo: string): KeyActions;
