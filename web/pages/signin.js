// @ts-check
import { endSession, session, startSession } from '../api.js';
import { identity } from '../client.js';
import { field, form, h } from '../dom.js';

export async function signInPage(navigate) {
  return h(
    'section',
    { class: 'narrow' },
    h('h1', {}, 'Sign in'),
    form(
      [
        field('E-mail', { name: 'email', type: 'email', required: true, autocomplete: 'username', autofocus: true }),
        field('Password', { name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
      ],
      'Sign in',
      async ({ email, password }) => {
        const user = await identity.signIn(email, password);
        await startSession(user.tokens[0]);
        const projects = await identity.projects();
        session.projectId = projects[0] ? projects[0].id : null;
        navigate(session.projectId ? '#/overview' : '#/projects');
      },
      { 'aria-label': 'Sign in' },
    ),
    h('h2', {}, 'Or with a token'),
    form(
      [field('Token', { name: 'token', type: 'password', required: true, autocomplete: 'off' })],
      'Use token',
      async ({ token }) => {
        await startSession(token.trim());
        try {
          const projects = await identity.projects();
          session.projectId = projects[0] ? projects[0].id : null;
        } catch (error) {
          await endSession();
          throw error;
        }
        navigate(session.projectId ? '#/overview' : '#/projects');
      },
      { 'aria-label': 'Sign in with a token' },
    ),
  );
}
