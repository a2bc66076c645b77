import { errors as joseErrors, jwtVerify } from 'jose';
import { fail } from '../../core/errors.js';
import type { Route } from '../types.js';

const BEARER = /^Bearer\s+(\S+)$/i;

function reasonOf(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the signature does not match the route secret';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token must be signed with HS256';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `claim "${error.claim}" is not valid`;
  return 'the token is not a valid JWT';
}

/**
 * Calls of a route with a secret need `Authorization: Bearer <jwt>`, an HS256 JWT signed with
 * the secret (its `exp`, when present, honoured). Routes without a secret are public.
 */
export async function checkRouteSecret(route: Route, authorization: string | undefined): Promise<void> {
  if (!route.secret) return;
  const token = BEARER.exec(authorization ?? '')?.[1];
  if (!token) throw fail('fn_route_secret_required');
  try {
    await jwtVerify(token, new TextEncoder().encode(route.secret), { algorithms: ['HS256'] });
  } catch (error) {
    throw fail('fn_route_token_invalid', reasonOf(error));
  }
}
