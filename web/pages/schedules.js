// @ts-check
import { worker } from '../client.js';
import { h, table, time, toast } from '../dom.js';

export async function schedulesPage(navigate) {
  const schedules = await worker.schedules();
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
                  await worker.cancelSchedule(s.id);
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
