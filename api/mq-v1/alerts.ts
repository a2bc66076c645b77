import type { ApiPlugin, WithParams } from '../type-provider.js';
import { addAlerts, removeAlerts, withAlertIds } from '../../src/mq/alerts/alerts.js';
import { listField, objectField, requiredField, stringField } from '../../src/core/body-fields.js';
import { parseAlerts } from '../../src/mq/queues/queue-settings.js';
import { queueParams, queueRefOf, type MqRouteOptions } from '../mq-shared/params.js';
import { queueSchema, queueView } from './views.js';
import { ANY_BUT_NULL } from '../../src/core/null-fields.js';

const alertsBody = { type: 'object', required: ['alerts'], properties: { alerts: ANY_BUT_NULL } } as const;
const alertParams = {
  type: 'object',
  required: ['project_id', 'queue_name', 'alert_id'],
  properties: { project_id: { type: 'string' }, queue_name: { type: 'string' }, alert_id: { type: 'string' } },
} as const;

/** The ids of `alerts: [{id}, ...]` (a delete request). */
function alertIdsOf(value: unknown): string[] {
  return listField(value, 'alerts').map((item, index) => {
    const at = `alerts[${index}]`;
    return stringField(requiredField(objectField(item, at).id, `${at}.id`), `${at}.id`);
  });
}

/** Alerts of a pull queue: add (POST), replace (PUT), remove by id (DELETE, DELETE /alerts/{id}). */
export const alertRoutes: ApiPlugin<MqRouteOptions> = async (app, { mq }) => {
  async function answerQueue(request: WithParams<{ queue_name: string }>) {
    return queueView(await mq.queues.require(queueRefOf(request)));
  }
  const path = '/1/projects/:project_id/queues/:queue_name/alerts';
  const schema = { params: queueParams, body: alertsBody, response: { 200: queueSchema } };

  app.post(path, {
    schema,
    handler: async (request) => {
      const ref = queueRefOf(request);
      const specs = parseAlerts(request.body.alerts, 'alerts');
      await mq.queues.changeAlerts(ref, (current) => addAlerts(ref.name, current, specs));
      return answerQueue(request);
    },
  });

  app.put(path, {
    schema,
    handler: async (request) => {
      const ref = queueRefOf(request);
      const specs = parseAlerts(request.body.alerts, 'alerts');
      await mq.queues.changeAlerts(ref, (current) => withAlertIds(ref.name, current, specs));
      return answerQueue(request);
    },
  });

  app.delete(path, {
    schema,
    handler: async (request) => {
      const ids = alertIdsOf(request.body.alerts);
      await mq.queues.changeAlerts(queueRefOf(request), (current) => removeAlerts(current, ids));
      return answerQueue(request);
    },
  });

  app.delete(`${path}/:alert_id`, {
    schema: { params: alertParams, response: { 200: queueSchema } },
    handler: async (request) => {
      const { alert_id: id } = request.params;
      await mq.queues.changeAlerts(queueRefOf(request), (current) => removeAlerts(current, [id]));
      return answerQueue(request);
    },
  });
};
