/**
 * Vite 8 builds this React app without @vitejs/plugin-react: its Oxc transform compiles
 * JSX with React's automatic runtime. `pg-checkout` is an ordinary dependency
 * (package.json: `file:../..`), resolved through the package's "exports" like any other.
 */
import {defineConfig} from 'vite';

export default defineConfig({
  oxc: {jsx: {runtime: 'automatic', importSource: 'react'}},
  build: {target: 'es2022'},
});
