npx pg-checkout-sandbox # in another terminal: the gateway sandbox on http://127.0.0.1:4010
GATEWAY_BASE_URL=http://127.0.0.1:4010 POS_ID=5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001 \
  API_KEY=sandbox-api-key API_SECRET=sandbox-api-secret ENDPOINTS_KEY=sandbox-endpoints-key \
  PUBLIC_URL=http://localhost:3000 DATABASE_URL=postgres://postgres@127.0.0.1:5432/shop \
  INSTANCE_ID=shop-a PORT=3000 npx tsx server.ts # in another terminal
GATEWAY_BASE_URL=http://127.0.0.1:4010 POS_ID=5a4d0b8e-2c1f-4e3a-9b7d-5a4db0c00001 \
  API_KEY=sandbox-api-key API_SECRET=sandbox-api-secret ENDPOINTS_KEY=sandbox-endpoints-key \
  PUBLIC_URL=http://localhost:3000 DATABASE_URL=postgres://postgres@127.0.0.1:5432/shop \
  INSTANCE_ID=shop-b PORT=3001 npx tsx server.ts
