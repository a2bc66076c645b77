import { row } from './row.js';

/** The error table's mq rows: queues, messages, subscribers. */
export const MQ_ERRORS = {
  // messages
  mq_queue_not_found: row(404, 'Queue not found'),
  mq_message_not_found: row(404, (about: string) => `Message not found${about}`),
  mq_message_reserved: row(403, (about: string) => `Message is reserved; its reservation_id is required${about}`),
  mq_message_not_reserved: row(403, (about: string) => `Message is not reserved${about}`),
  mq_reservation_timed_out: row(403, (about: string) => `Reservation timed out${about}`),
  mq_too_many_messages: row(
    400,
    (most: number, got: number) => `messages: at most ${most} messages per request, got ${got}`,
  ),
  mq_acknowledge_needs_reservation: row(
    406,
    'reservation_id is required to acknowledge a push delivery (subscriber_name is given)',
  ),
  mq_reservation_id_required: row(406, 'reservation_id is required'),
  mq_too_many_deletes: row(
    400,
    (field: string, most: number, got: number) => `${field}: at most ${most} messages, got ${got}`,
  ),
  mq_delete_given_twice: row(400, (at: string, first: string) => `${at}.id repeats ${first}.id`),
  mq_reservation_id_empty: row(400, 'reservation_id must not be empty'),
  mq_clear_needs_body: row(400, 'Clearing a queue needs the JSON body {}; to delete messages give "ids"'),
  mq_release_needs_body: row(400, 'a JSON body is required (send {} when there is nothing to set)'),
  mq_too_many_push_headers: row(400, (field: string, most: number) => `${field} must have at most ${most} headers`),
  mq_header_problem: row(400, (field: string, name: string, problem: string) => `${field} "${name}": ${problem}`),
  // queue names
  mq_queue_name_characters: row(400, (field: string) => `${field} must not contain '/' or control characters`),
  // queues
  mq_queue_save_contended: row(503, 'The queue is being changed by other requests; try again'),
  mq_legacy_subscribers: row(400, (field: string, moved: string) => `${field} is not read here: ${moved}`),
  mq_queue_type_change: row(
    400,
    (type: string) => `queue.type cannot be changed after creation (the queue is ${type})`,
  ),
  mq_push_on_pull_queue: row(400, (exists: boolean) =>
    exists ? 'queue.push cannot be set on a pull queue' : 'queue.push is not allowed on a pull queue',
  ),
  mq_dead_letter_on_push_queue: row(
    400,
    'queue.dead_letter is not allowed on a push queue; use queue.push.error_queue',
  ),
  mq_alerts_setting_on_push_queue: row(400, 'queue.alerts cannot be set on a push queue'),
  mq_dead_letter_name_empty: row(400, 'queue.dead_letter.queue_name must be a non-empty string'),
  mq_dead_letter_self: row(400, 'queue.dead_letter.queue_name must name another queue'),
  mq_push_subscribers_required: row(406, 'queue.push.subscribers is required for a push queue'),
  mq_push_subscribers_empty: row(400, 'queue.push.subscribers must hold at least one subscriber'),
  mq_subscriber_name_twice: row(400, (at: string, name: string) => `${at}.name "${name}" is given twice`),
  mq_url_not_absolute: row(400, (field: string) => `${field} must be an absolute URL`),
  mq_url_scheme: row(
    400,
    (field: string) => `${field} must be an http or https URL, or ironmq:///<queue> or ironworker:///<code>`,
  ),
  mq_subscribers_need_push_queue: row(400, 'Subscribers can only be changed on a push queue'),
  mq_push_queue_needs_subscriber: row(400, 'A push queue must keep at least one subscriber'),
  mq_v1_subscribers_too_big: row(400, (kb: number) => `subscribers must be at most ${kb} KB as JSON`),
  mq_v1_subscriber_url_twice: row(400, (index: number) => `subscribers[${index}].url is given twice`),
  mq_v1_subscribers_on_pull_queue: row(400, 'subscribers apply to push queues only (push_type multicast or unicast)'),
  mq_v1_retries_on_pull_queue: row(
    400,
    'retries and retries_delay apply to push queues only (push_type multicast or unicast)',
  ),
  mq_v1_alerts_on_push_queue: row(400, "alerts are not allowed on push queues: remove the queue's alerts first"),
  mq_v1_dead_letter_on_push_queue: row(
    400,
    "dead_letter is not allowed on push queues: remove the queue's dead_letter first",
  ),
  // alerts
  mq_alerts_on_push_queue: row(400, 'alerts cannot be set on a push queue'),
  mq_too_many_alerts: row(400, (most: number) => `a queue can have at most ${most} alerts`),
  mq_alert_targets_itself: row(400, (index: number) => `alerts[${index}].queue must name another queue`),
  mq_alert_twice: row(
    400,
    (index: number) => `alerts[${index}] duplicates another alert (same type, trigger, direction and queue)`,
  ),
  mq_alert_already_there: row(400, (index: number) => `alerts[${index}] duplicates an alert the queue has`),
  mq_alert_not_found: row(404, (id: string) => `Alert not found: ${id}`),
  // push
  mq_push_queues_only: row(400, 'Push statuses and acknowledgements apply to push queues only'),
  mq_push_message_not_found: row(404, (subscriber: string) => `Message not found for subscriber "${subscriber}"`),
  mq_subscriber_not_found: row(404, (id: string) => `Subscriber not found: ${id}`),
  mq_internal_url_form: row(
    400,
    (field: string, form: string) => `${field} must be written ${form} (three slashes, no query or fragment)`,
  ),
  mq_internal_url_elsewhere: row(
    400,
    (field: string, scheme: string, form: string) =>
      `${field}: ${scheme} subscribers reach this project only; write ${form} with no token, host or project`,
  ),
  mq_internal_url_escape: row(400, (field: string) => `${field} has a malformed %-escape in its name`),
  mq_self_push: row(400, (url: string) => `a queue cannot push to itself: ${url} is this queue`),
  mq_push_loop: row(400, (path: string) => `push subscribers would loop back to this queue: ${path}`),
  mq_hop_budget_exhausted: row(
    508,
    (hops: number) =>
      `hop budget exhausted: this message was already passed on ${hops} times by push delivery, alerts or error reports (a loop?), so it goes no further`,
  ),
  mq_error_queue_is_itself: row(
    400,
    (name: string) => `queue.push.error_queue must name another queue: ${name} is this queue (its reports would loop)`,
  ),
  mq_too_many_subscribers: row(
    400,
    (most: number, given: number) => `a push queue has at most ${most} subscribers (this change leaves ${given})`,
  ),
} as const;
