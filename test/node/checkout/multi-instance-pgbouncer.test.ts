/**
 * The multi-instance suite (`multi-instance.ts`) through PgBouncer in transaction pooling
 * mode (`pgbouncer.ts`, started here on a free port with its own ini): three instances of
 * ten connections each share five server connections, so consecutive transactions of one
 * instance run on different server connections. It holds only if nothing is kept in a
 * database session: no `search_path` or `statement_timeout` as startup parameters (which
 * PgBouncer refuses), no session advisory lock, no named prepared statements.
 */
import {multiInstanceSuite} from './multi-instance.js';
import {PGBOUNCER_SKIP, startPgBouncer, type PgBouncer} from './pgbouncer.js';

let bouncer: PgBouncer | undefined;
multiInstanceSuite('three instances on one PostgreSQL through PgBouncer (transaction pooling)', {
  skip: PGBOUNCER_SKIP,
  database: async () => {
    bouncer = await startPgBouncer({poolSize: 5});
    return bouncer.url;
  },
  done: async () => {
    await bouncer?.stop();
  },
});
