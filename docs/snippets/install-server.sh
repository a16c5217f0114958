npm install pg-checkout hono pino zod @hono/node-server better-sqlite3
