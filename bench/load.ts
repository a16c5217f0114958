/**
 * A helper of the in-process benchmarks (`checkout`): a fetch handler served on a loopback
 * port. The server benchmarks' open-loop load generator is
 * in `bench/server/`.
 */
import {createAdaptorServer} from '@hono/node-server';
import type {AddressInfo} from 'node:net';

/** Serves a fetch handler on a loopback port; the handler may be set after the port is known. */
export async function serveLoopback(
  handler?: (req: Request, env: unknown) => Response | Promise<Response>,
): Promise<{
  url: string;
  setHandler(h: (req: Request, env: unknown) => Response | Promise<Response>): void;
  close(): Promise<void>;
}> {
  let current = handler;
  const server = createAdaptorServer({
    fetch: (req, env) => (current ? current(req, env) : new Response(null, {status: 503})),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setHandler(h) {
      current = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as {closeAllConnections(): void}).closeAllConnections();
      }),
  };
}
