npm install -D typescript tsx @types/node@20 esbuild
