/**
 * `pg-checkout/hydrate`: the browser entry for pages whose `<pg-card-form>` was rendered on
 * the server (`pg-checkout/ssr`). The same elements as `pg-checkout`, with Lit's hydration
 * support loaded first (it must run before Lit's element class is defined): a server-rendered
 * element adopts the shadow root it arrived with, and what the customer typed before this
 * module ran, instead of rendering anew. Only pages rendered on the server pay for it; the
 * CDN file of such pages is `pg-checkout-hydrate.js`, beside `pg-checkout.js`.
 */
import '@lit-labs/ssr-client/lit-element-hydrate-support.js';
import './index.js';
