import { api, projectPath } from '../api.js';
import { h, table, time, toast } from '../dom.js';

const worker = (rest) => projectPath('/2', rest);

export async function schedulesPage(navigate) {
  const { schedules } = await api('GET', worker('/schedules?per_page=100'));
  return h(
    'section',
    {},
    h('h1', {}, 'Schedules'),
    table(
      ['Id', 'Code', 'Status', 'Every', 'Runs', 'Next run', ''],
      schedules.map((s) => [
        h('code', {}, s.id),
        s.code_name,
        s.status || '',
        s.run_every ? `${s.run_every} s` : s.cron || 'once',
        `${s.run_count || 0}${s.run_times ? ` / ${s.run_times}` : ''}`,
        time(s.next_start),
        s.status === 'scheduled'
          ? h(
              'button',
              {
                class: 'danger',
                onclick: async () => {
                  await api('POST', worker(`/schedules/${s.id}/cancel`), {});
                  toast('Schedule cancelled');
                  navigate('#/schedules');
                },
              },
              'Cancel',
            )
          : '',
      ]),
      { empty: 'No schedules.' },
    ),
  );
}
