// The attribute playgrounds' model (scripts/docs/playground.mjs), read once at build time from
// custom-elements.json and the published declarations, and read again when they change.
import {defineLoader} from 'vitepress';
import {playgroundElements, type PlaygroundElement} from '../../../scripts/docs/playground.mjs';

declare const data: Record<string, PlaygroundElement>;
export {data};

export default defineLoader({
  watch: ['../../../custom-elements.json', '../../../dist/browser/index.d.ts'],
  load: () => playgroundElements(),
});
