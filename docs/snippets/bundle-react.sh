npx esbuild checkout-page.tsx --bundle --splitting --format=esm --minify --outdir=public
