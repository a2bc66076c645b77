import { fail } from '../src/core/errors.js';
import { presentedToken, refuseTaskToken } from './auth-hooks.js';
import type { PluginOptions } from './context.js';
import { clearSessionCookie, DASHBOARD_HEADER, setSessionCookie } from './dashboard-session-cookie.js';
import type { ApiPlugin } from './type-provider.js';

/**
 * The dashboard's sign-in keeps no token where its script could read it: it hands the token it
 * got (from the e-mail sign-in, or typed) to POST /ui/session once, and from then on its
 * requests are signed in by an HttpOnly, SameSite=Strict cookie. DELETE /ui/session signs out.
 */
export const dashboardSession: ApiPlugin<PluginOptions> = async (app, { ctx }) => {
  const secure = (protocol: string) => ctx.config.publicScheme === 'https' || protocol === 'https';

  app.post('/ui/session', async (request, reply) => {
    if (!request.headers.authorization) throw fail('session_needs_token');
    if (request.headers[DASHBOARD_HEADER] === undefined) throw fail('session_needs_header', DASHBOARD_HEADER);
    const token = presentedToken(request)!;
    refuseTaskToken(await ctx.authenticator.authenticate(token));
    setSessionCookie(reply, token, secure(request.protocol));
    return {};
  });

  app.delete('/ui/session', async (request, reply) => {
    clearSessionCookie(reply, secure(request.protocol));
    return {};
  });
};
