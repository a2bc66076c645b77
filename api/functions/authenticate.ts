import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../../src/auth/authenticator.js';
import type { Principal } from '../../src/auth/types.js';
import { fail } from '../../src/core/errors.js';
import { refuseTaskToken } from '../auth-hooks.js';
import { sessionCookieToken } from '../dashboard-session-cookie.js';
import { queryParameter } from '../request-fields.js';

const SCHEMES = /^(OAuth|Bearer) (.+)$/;

/** `Authorization: OAuth <token>` or `Bearer <token>`, else `?oauth=`, else the dashboard's session cookie. */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = SCHEMES.exec(header);
    if (!match) throw fail('fn_authorization_scheme');
    return match[2]!.trim() || undefined;
  }
  const fromQuery = queryParameter(request, 'oauth');
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  return sessionCookieToken(request);
}
/** The principal of a management request; task tokens are refused. */
export async function functionsPrincipal(authenticator: Authenticator, request: FastifyRequest): Promise<Principal> {
  return refuseTaskToken(await authenticator.authenticate(presentedToken(request)));
}
