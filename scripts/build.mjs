// Build everything `exports`, `bin` and the CDN need: the server and sandbox entries
// (scripts/build-server.mjs), then the browser entries, the CDN bundle and the
// custom-elements manifest (scripts/build-browser.mjs), then the demo's page scripts
// (scripts/build-demo.mjs).
import {execFileSync} from 'node:child_process';
import {existsSync, rmSync} from 'node:fs';

const run = (cmd, args) => execFileSync(cmd, args, {stdio: 'inherit'});

rmSync('dist', {recursive: true, force: true});
run(process.execPath, ['scripts/build-server.mjs']);
if (existsSync('scripts/build-browser.mjs')) {
  run(process.execPath, ['scripts/build-browser.mjs']);
}
if (existsSync('scripts/build-demo.mjs')) {
  run(process.execPath, ['scripts/build-demo.mjs']);
}
