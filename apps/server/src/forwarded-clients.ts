/** The client address of a request through a trusted reverse proxy (client-address.ts), for `remoteAddressOf`. */
import type { MiddlewareHandler } from 'hono';
import { clientAddress, type TrustedProxies } from './client-address.ts';
import { socketOf, type Env } from './routes/request.ts';

/** Sets the request's client address (read by `remoteAddressOf`) where its connection comes from a trusted proxy. */
export function forwardedClients(trusted: TrustedProxies): MiddlewareHandler<Env> {
  return async (c, next) => {
    const peer = socketOf(c)?.remoteAddress;
    const client = clientAddress(trusted, peer, c.req.header('x-forwarded-for'));
    if (client !== peer && client !== undefined) c.set('clientAddress', client);
    return next();
  };
}
