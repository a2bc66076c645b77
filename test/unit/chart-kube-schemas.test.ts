import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chartValues,
  findObject,
  renderChart,
  valuesSchemaErrors,
  type KubeObject,
  type Release,
  type RenderedChart,
  type Values,
} from '../helpers/chart.js';
import { chartDir, everyOptionalObject, example, exampleFiles, inlineSecrets } from '../helpers/chart-values.js';
import { kubeSchemaErrors } from '../helpers/kube-schemas.js';

// `helm template` cannot run here, so the chart is rendered as in chart.test.ts, with the default
// values and each set of values the chart's tests and examples use, and every object is checked
// against the Kubernetes (or Prometheus Operator) schema of its apiVersion and kind.

const templatesDir = path.join(chartDir, 'templates');

const externalRedis = { redis: { url: 'redis://r:6379', bundled: { enabled: false } } };
const secretVolume = { name: 'ca', secret: { secretName: 'corporate-ca', defaultMode: 0o444 } };
type Variant = [label: string, values: Values, release?: Release];

const variants: Variant[] = [
  ['the default values (with the secrets they require)', inlineSecrets],
  ...exampleFiles.map((file): Variant => [`examples/${file}`, example(file)]),
  ['every optional object on', everyOptionalObject],
  [
    'a 53-character release name and the longest nameOverride',
    { ...everyOptionalObject, nameOverride: 'n'.repeat(32) },
    { name: `${'r'.repeat(45)}-release`, namespace: 'ferrum' },
  ],
  ['a fullnameOverride', { ...inlineSecrets, fullnameOverride: 'iron' }],
  ['another release and namespace', inlineSecrets, { name: 'prod', namespace: 'apps' }],
  [
    'dind as an ordinary second container',
    { ...inlineSecrets, runner: { docker: { dind: { nativeSidecar: false } } } },
  ],
  [
    'function calls on a port and host of their own',
    { ...inlineSecrets, controller: { functions: { port: 8081, servicePort: 81, host: 'fn.example.com' } } },
  ],
  [
    'extra env, pod annotations, affinity and pull secrets, no runners, Redis by URL',
    {
      ...inlineSecrets,
      ...externalRedis,
      imagePullSecrets: ['regcred'],
      metrics: { podAnnotations: false },
      controller: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
            },
          },
        },
        podAnnotations: { 'example.com/team': 'platform' },
        extraEnv: [
          { name: 'FERRUM_TOKEN_CACHE_MS', value: '1000' },
          { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
      },
      runner: { enabled: false },
    },
  ],
  [
    'an Ingress with a class, TLS and annotations',
    {
      ...inlineSecrets,
      ingress: {
        enabled: true,
        className: 'nginx',
        annotations: { 'example.com/team': 'platform' },
        hosts: ['ferrum.example.com', 'fn.example.com'],
        tls: [{ hosts: ['ferrum.example.com'], secretName: 'ferrum-tls' }],
      },
    },
  ],
  [
    'monitoring with custom alerts, a target selector and labels',
    {
      ...inlineSecrets,
      metrics: {
        serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } },
        prometheusRule: {
          enabled: true,
          labels: { release: 'prometheus' },
          targetSelector: 'job="ferrum"',
          rateWindow: '10s',
          for: { targetDown: '0s', noLeader: '0s' },
          extraRules: [
            {
              alert: 'FerrumSlowPushes',
              expr: 'histogram_quantile(0.99, rate(ferrum_mq_push_duration_seconds_bucket[5m])) > 10',
              for: '30m',
              labels: { severity: 'info', team: 'queues' },
              annotations: { description: 'Push deliveries of {{ $labels.queue }} are slow' },
              runbookUrl: 'https://runbooks.example.com/ferrum/slow-pushes',
            },
            { alert: 'FerrumDown', expr: 'absent(up{job="ferrum"})', runbookUrl: 'https://runbooks.example.com/down' },
          ],
        },
        grafanaDashboard: { enabled: true },
      },
    },
  ],
  [
    'NetworkPolicies narrowed to peers',
    {
      ...inlineSecrets,
      networkPolicy: {
        apiFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
        metricsFrom: [{ podSelector: { matchLabels: { app: 'prometheus' } } }],
      },
    },
  ],
  ['runners without metrics', { ...inlineSecrets, runner: { metrics: { enabled: false } } }],
  [
    "runners on the node's Docker socket as a Deployment",
    { ...inlineSecrets, runner: { docker: { mode: 'hostSocket' } } },
  ],
  [
    'DaemonSet runners with dind as an ordinary second container',
    { ...inlineSecrets, runner: { kind: 'DaemonSet', docker: { dind: { nativeSidecar: false } } } },
  ],
  [
    'DaemonSet runners with a percentage disruption budget',
    { ...inlineSecrets, runner: { kind: 'DaemonSet', podDisruptionBudget: { maxUnavailable: '25%' } } },
  ],
  [
    'no disruption budgets, spreading, NetworkPolicies, ServiceAccount or helm test',
    {
      ...inlineSecrets,
      networkPolicy: { enabled: false },
      serviceAccount: { create: false },
      tests: { enabled: false },
      controller: { podDisruptionBudget: { enabled: false }, topologySpreadConstraints: [] },
      runner: { podDisruptionBudget: { enabled: false }, topologySpreadConstraints: [] },
    },
  ],
  [
    'priority classes, pod labels, extra volumes and env on every workload',
    {
      ...inlineSecrets,
      controller: { priorityClassName: 'ferrum-api', podLabels: { tier: 'api' }, extraVolumes: [secretVolume] },
      runner: {
        priorityClassName: 'ferrum-batch',
        podLabels: { tier: 'batch' },
        extraVolumes: [secretVolume],
        extraVolumeMounts: [{ name: 'ca', mountPath: '/etc/ssl/extra', readOnly: true }],
        extraEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/extra/ca.pem' }],
      },
      redis: { bundled: { priorityClassName: 'ferrum-data', podLabels: { tier: 'data' } } },
    },
  ],
  [
    'tuned probes',
    {
      ...inlineSecrets,
      controller: {
        probes: { readiness: { periodSeconds: 2, failureThreshold: 4 }, startup: { failureThreshold: 150 } },
      },
      runner: { probes: { liveness: { timeoutSeconds: 9 } } },
    },
  ],
  [
    'external Docker without TLS, Redis fsyncing always',
    {
      ...inlineSecrets,
      runner: { docker: { mode: 'external', external: { host: 'tcp://docker:2376' } } },
      redis: { bundled: { appendfsync: 'always' } },
    },
  ],
  [
    'gateway runners with dind beside the controllers',
    { ...inlineSecrets, runner: { mode: 'gateway', gateway: { tokenSecret: 'runner-token' } } },
  ],
  [
    'a Sentinel-watched Redis',
    {
      secrets: { existingSecret: 'ferrum-secrets' },
      redis: { mode: 'sentinel', sentinelMaster: 'main', url: 's1:26379,s2:26379', bundled: { enabled: false } },
    },
  ],
  [
    'a NodePort Service with annotations, an annotated ServiceAccount',
    {
      ...inlineSecrets,
      serviceAccount: { annotations: { 'example.com/role': 'ferrum' } },
      controller: { service: { type: 'NodePort', annotations: { 'example.com/lb': 'internal' } } },
    },
  ],
];

/** A literal `kind:` of every document of every template (kinds set from values are left out). */
function templateKinds(): Map<string, string[]> {
  const files = (fs.readdirSync(templatesDir, { recursive: true }) as string[]).filter((file) =>
    file.endsWith('.yaml'),
  );
  return new Map(
    files.map((file) => {
      const text = fs.readFileSync(path.join(templatesDir, file), 'utf8');
      return [file, [...text.matchAll(/^kind: ([A-Za-z]+)$/gm)].map((match) => match[1]!)];
    }),
  );
}

describe('rendered objects against the Kubernetes schemas', () => {
  // Each variant is rendered once, by whichever test asks first.
  const renders = new Map<string, Promise<RenderedChart>>();
  const renderVariant = ([label, values, release]: Variant) => {
    if (!renders.has(label)) renders.set(label, renderChart(chartDir, values, release));
    return renders.get(label)!;
  };

  it.each(variants)('%s: every object matches the schema of its kind', async (...variant) => {
    expect(valuesSchemaErrors(chartDir, chartValues(chartDir, variant[1]))).toEqual([]);
    const rendered = await renderVariant(variant);
    expect(rendered.objects.length).toBeGreaterThan(0);
    for (const object of rendered.objects) {
      const where = `${rendered.templateOf.get(object)}: ${object.kind}/${object.metadata.name}`;
      expect(await kubeSchemaErrors(object), where).toEqual([]);
    }
  });

  // A new template, or a new document in one, is checked only if some variant renders it.
  it('covers every template and every kind each one renders', async () => {
    const renderedKinds = new Map<string, Set<string>>();
    for (const rendered of await Promise.all(variants.map(renderVariant))) {
      for (const object of rendered.objects) {
        const file = rendered.templateOf.get(object)!;
        renderedKinds.set(file, (renderedKinds.get(file) ?? new Set()).add(object.kind));
      }
    }
    const missing = [...templateKinds()].flatMap(([file, kinds]) =>
      kinds.length === 0
        ? renderedKinds.has(file)
          ? []
          : [`${file}: any object`]
        : kinds.filter((kind) => !renderedKinds.get(file)?.has(kind)).map((kind) => `${file}: ${kind}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('the schema check itself', () => {
  const renderDefaults = () => renderChart(chartDir, inlineSecrets);

  it('refuses an object of a kind it has no schema for', async () => {
    const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    expect(await kubeSchemaErrors(widget)).toEqual(['no schema for example.com/v1 Widget']);
    // A type inside an object (the Prometheus Operator's Endpoint) is no kind either.
    const endpoint: KubeObject = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Endpoint', metadata: { name: 'e' } };
    expect(await kubeSchemaErrors(endpoint)).toEqual(['no schema for monitoring.coreos.com/v1 Endpoint']);
  });

  it('refuses beta versions of Kubernetes kinds, which Kubernetes stops serving', async () => {
    const budget = findObject(await renderDefaults(), 'PodDisruptionBudget', 'ferrum-controller');
    expect(await kubeSchemaErrors({ ...budget, apiVersion: 'policy/v1beta1' })).toEqual([
      'policy/v1beta1 PodDisruptionBudget: not a stable Kubernetes API version',
    ]);
  });

  it('finds a wrong type, a missing required field and a misplaced field in a workload', async () => {
    const deployment = findObject(await renderDefaults(), 'Deployment', 'ferrum-controller');
    const controller = deployment.spec.template.spec.containers[0];
    controller.ports[0].containerPort = '8080';
    delete controller.name;
    // What a template indented one level wrong produces: a container field under its resources.
    controller.resources.livenessProbe = controller.livenessProbe;
    const errors = await kubeSchemaErrors(deployment);
    expect(errors).toEqual([
      '/spec/template/spec/containers/0 must have required property name',
      '/spec/template/spec/containers/0/ports/0/containerPort must be integer',
      '/spec/template/spec/containers/0/resources/livenessProbe is not a field of its object',
    ]);
  });

  it('checks Prometheus Operator objects against their CRDs', async () => {
    const monitoring = await renderChart(chartDir, everyOptionalObject);
    const monitor = findObject(monitoring, 'ServiceMonitor', 'ferrum-controller');
    monitor.spec.endpoints[0].port = 8080;
    const rule = findObject(monitoring, 'PrometheusRule', 'ferrum');
    rule.spec.groups[0].rules[0].runbookUrl = 'https://runbooks.example.com';
    expect(await kubeSchemaErrors(monitor)).toEqual(['/spec/endpoints/0/port must be string']);
    expect(await kubeSchemaErrors(rule)).toEqual(['/spec/groups/0/rules/0/runbookUrl is not a field of its object']);
  });

  it('leaves maps (labels, resource limits) alone, whatever their keys', async () => {
    const rendered = await renderDefaults();
    const deployment = findObject(rendered, 'Deployment', 'ferrum-controller');
    deployment.metadata.labels!['example.com/any-key'] = 'x';
    deployment.spec.template.spec.containers[0].resources.limits['example.com/gpu'] = '1';
    expect(await kubeSchemaErrors(deployment)).toEqual([]);
  });
});
