npx esbuild checkout-page.ts --bundle --splitting --format=esm --minify --outdir=public
