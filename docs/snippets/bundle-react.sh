npx esbuild checkout-page.tsx --bundle --format=esm --minify --outfile=public/checkout-page.js
