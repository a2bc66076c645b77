// @ts-check
import { identity } from '../client.js';
import { field, form, h, table, time, toast } from '../dom.js';

export async function tokensPage(navigate) {
  const created = h('div', { id: 'new-token' });
  const list = h('div', {});
  const refresh = async () => list.replaceChildren(await tokenTable(navigate));
  await refresh();
  return h(
    'section',
    {},
    h('h1', {}, 'Tokens'),
    list,
    h('h2', {}, 'New token'),
    form([field('Name', { name: 'name', required: true })], 'Create token', async ({ name }, el) => {
      const token = await identity.createToken(name);
      el.reset();
      await refresh();
      const value = h('input', {
        readonly: true,
        value: token.token,
        'aria-label': 'New token value',
        class: 'secret',
      });
      created.replaceChildren(
        h('p', {}, 'Copy the token now: it is shown in full only here.'),
        value,
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              await navigator.clipboard?.writeText(token.token);
              toast('Copied');
            },
          },
          'Copy',
        ),
      );
      value.focus();
      value.select();
    }),
    created,
  );
}

async function tokenTable(navigate) {
  const tokens = await identity.tokens();
  const rows = tokens.map((token) => [
    token.name || h('em', {}, 'unnamed'),
    h('code', {}, token.token_hint ?? ''),
    token.admin ? 'admin' : token.type,
    time(token.created_at),
    h(
      'button',
      {
        class: 'danger',
        onclick: async () => {
          if (!confirm(`Delete token "${token.name}"? Clients using it stop working at once.`)) return;
          await identity.deleteToken(token._id);
          toast('Token deleted');
          navigate('#/tokens');
        },
      },
      'Delete',
    ),
  ]);
  return table(['Name', 'Token', 'Type', 'Created', ''], rows, { empty: 'No tokens.' });
}
