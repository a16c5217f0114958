/**
 * Three `server-example` instances on one PostgreSQL, one killed mid-flight
 * (`multi-instance.ts`), connected to the database directly.
 */
import {multiInstanceSuite} from './multi-instance.js';
import {PG_SKIP} from './postgres.js';

multiInstanceSuite('three instances on one PostgreSQL, one killed mid-flight', {skip: PG_SKIP});
