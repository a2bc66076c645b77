import type { ApiPlugin, WithParams } from '../type-provider.js';
import { addAlerts, removeAlerts, withAlertIds } from '../../src/mq/alerts/alerts.js';
import { parseAlerts } from '../../src/mq/queues/queue-settings.js';
import { queueParams, queueRefOf, type MqRouteOptions } from '../mq-shared/params.js';
import { queueSchema, queueView } from './views.js';
import { ALERT_SCHEMA } from '../../src/mq/queues/settings-schema.js';

const alertsBody = {
  type: 'object',
  required: ['alerts'],
  properties: { alerts: { type: 'array', items: ALERT_SCHEMA } },
} as const;
const alertIdsBody = {
  type: 'object',
  required: ['alerts'],
  properties: {
    alerts: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
  },
} as const;
const alertParams = {
  type: 'object',
  required: ['project_id', 'queue_name', 'alert_id'],
  properties: { project_id: { type: 'string' }, queue_name: { type: 'string' }, alert_id: { type: 'string' } },
} as const;

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
    schema: { ...schema, body: alertIdsBody },
    handler: async (request) => {
      const ids = request.body.alerts.map((alert) => alert.id);
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
