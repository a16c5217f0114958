// Build everything `exports` and the CDN need: the server entry (plain TypeScript output),
// then the browser entry, the CDN bundle and the custom-elements manifest (scripts/build-browser.mjs),
// then the demo's page scripts (scripts/build-demo.mjs).
import {execFileSync} from 'node:child_process';
import {existsSync, rmSync} from 'node:fs';

const run = (cmd, args) => execFileSync(cmd, args, {stdio: 'inherit'});

rmSync('dist', {recursive: true, force: true});
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.server.json']);
console.log('built dist/server (pg-checkout/server)');
if (existsSync('scripts/build-browser.mjs')) {
  run(process.execPath, ['scripts/build-browser.mjs']);
}
if (existsSync('scripts/build-demo.mjs')) {
  run(process.execPath, ['scripts/build-demo.mjs']);
}
