npx esbuild checkout-page.ts --bundle --format=esm --minify --outfile=public/checkout-page.js
