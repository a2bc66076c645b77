import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import {
  chartValues,
  findObject,
  readYamlFile,
  renderChart,
  type KubeObject,
  type RenderedChart,
  type Values,
} from '../helpers/chart.js';

const chartDir = path.resolve('charts/ferrum');
const examplesDir = path.join(chartDir, 'examples');
const exampleFiles = fs
  .readdirSync(examplesDir)
  .filter((file) => file.endsWith('.yaml'))
  .sort();
const example = (file: string) => readYamlFile(path.join(examplesDir, file));

const inlineSecrets = {
  secrets: { bootstrapToken: 'a'.repeat(40), encryptionKey: 'b'.repeat(64) },
};

let validate: ValidateFunction;
beforeAll(() => {
  const schema = JSON.parse(fs.readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8'));
  validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema);
});

function schemaErrors(values: Values): string[] {
  return validate(values) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

function podSpec(object: KubeObject): any {
  return object.spec.template.spec;
}

function container(object: KubeObject, name: string): any {
  const spec = podSpec(object);
  const found = [...spec.containers, ...(spec.initContainers ?? [])].find((entry: any) => entry.name === name);
  if (!found) throw new Error(`no container ${name} in ${object.kind}/${object.metadata.name}`);
  return found;
}

function env(containerSpec: any): Record<string, any> {
  const names = containerSpec.env.map((entry: any) => entry.name);
  expect(new Set(names).size, `duplicate env in ${containerSpec.name}: ${names}`).toBe(names.length);
  return Object.fromEntries(containerSpec.env.map((entry: any) => [entry.name, entry.value ?? entry.valueFrom]));
}

/** Checks every rendered chart must pass, whatever the values. */
function expectWellFormed(rendered: RenderedChart): void {
  for (const object of rendered.objects) {
    expect(object.apiVersion, `${object.kind} apiVersion`).toMatch(/^[a-z./]*v1$/);
    expect(object.metadata.name.length).toBeLessThanOrEqual(63);
    expect(object.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(object.metadata.labels?.['app.kubernetes.io/instance']).toBe('ferrum');
    if (object.spec?.template && object.spec.selector?.matchLabels) {
      // A workload whose selector does not match its own pods is refused by the API server.
      for (const [key, value] of Object.entries(object.spec.selector.matchLabels)) {
        expect(object.spec.template.metadata.labels[key], `${object.kind}/${object.metadata.name} ${key}`).toBe(value);
      }
    }
  }
}

describe('values.schema.json', () => {
  it('accepts values.yaml', () => {
    expect(schemaErrors(chartValues(chartDir))).toEqual([]);
  });

  it('has an example for each documented mode', () => {
    expect(exampleFiles).toEqual(['dind.yaml', 'external-docker.yaml', 'host-socket.yaml']);
  });

  it.each(exampleFiles)('accepts examples/%s merged over values.yaml', (file) => {
    expect(schemaErrors(chartValues(chartDir, example(file)))).toEqual([]);
  });

  const refusals: [string, Values, string][] = [
    [
      'an unknown Docker mode',
      { runner: { docker: { mode: 'podman' } } },
      '/runner/docker/mode must be equal to one of the allowed values',
    ],
    [
      'an unknown runner kind',
      { runner: { kind: 'StatefulSet' } },
      '/runner/kind must be equal to one of the allowed values',
    ],
    [
      'a drain shorter than the task timeout',
      { runner: { drainSeconds: 600 } },
      '/runner/drainSeconds must be >= 3600',
    ],
    [
      'a grace period not above the task timeout',
      { runner: { terminationGracePeriodSeconds: 3600 } },
      '/runner/terminationGracePeriodSeconds must be >= 3601',
    ],
    ['zero controller replicas', { controller: { replicas: 0 } }, '/controller/replicas must be >= 1'],
    [
      'external Docker without a host',
      { runner: { docker: { mode: 'external' } } },
      '/runner/docker/external/host must NOT have fewer than 1 characters',
    ],
    [
      'a Docker host that is not a URL',
      { runner: { docker: { mode: 'external', external: { host: 'docker:2375' } } } },
      '/runner/docker/external/host must match pattern',
    ],
    [
      'bundled Redis together with a URL',
      { redis: { url: 'redis://r:6379' } },
      '/redis/url must NOT have more than 0 characters',
    ],
    [
      'external Redis with neither URL nor Secret',
      { redis: { bundled: { enabled: false } } },
      '/redis must match exactly one schema in oneOf',
    ],
    [
      'external Redis with both URL and Secret',
      { redis: { url: 'redis://r:6379', existingSecret: 's', bundled: { enabled: false } } },
      '/redis must match exactly one schema in oneOf',
    ],
    [
      'a Redis URL of another scheme',
      { redis: { url: 'http://r:6379', bundled: { enabled: false } } },
      '/redis/url must match pattern',
    ],
    ['a short bootstrap token', { secrets: { bootstrapToken: 'short' } }, '/secrets/bootstrapToken must match pattern'],
    ['a short encryption key', { secrets: { encryptionKey: 'short' } }, '/secrets/encryptionKey must match pattern'],
    ['a misspelt key', { controller: { replica: 2 } }, '/controller must NOT have additional properties'],
    [
      'a bad resource quantity',
      { controller: { resources: { limits: { memory: 'lots' } } } },
      '/controller/resources/limits/memory must match pattern',
    ],
    [
      'a toleration with an unknown effect',
      { runner: { tolerations: [{ key: 'k', effect: 'Sometimes' }] } },
      '/runner/tolerations/0/effect must be equal to one of the allowed values',
    ],
    [
      'a node selector with a non-string value',
      { runner: { nodeSelector: { gpu: true } } },
      '/runner/nodeSelector/gpu must be string',
    ],
    [
      'a bad ServiceMonitor interval',
      { metrics: { serviceMonitor: { interval: 'often' } } },
      '/metrics/serviceMonitor/interval must match pattern',
    ],
  ];
  it.each(refusals)('refuses %s', (_label, override, message) => {
    const errors = schemaErrors(chartValues(chartDir, override));
    expect(
      errors.some((error) => error.startsWith(message)),
      errors.join('\n'),
    ).toBe(true);
  });
});

describe('templates: dind mode with the bundled Redis (examples/dind.yaml)', () => {
  let rendered: RenderedChart;
  beforeAll(async () => {
    rendered = await renderChart(chartDir, example('dind.yaml'));
  });

  it('renders exactly the expected objects', () => {
    expectWellFormed(rendered);
    expect(rendered.objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      'Deployment/ferrum-controller',
      'Deployment/ferrum-runner',
      'Secret/ferrum-secrets',
      'Service/ferrum-controller',
      'Service/ferrum-redis',
      'StatefulSet/ferrum-redis',
    ]);
  });

  it('runs the controller with probes on /health and /ready behind a Service', () => {
    const deployment = findObject(rendered, 'Deployment', 'ferrum-controller');
    expect(deployment.spec.replicas).toBe(2);
    const controller = container(deployment, 'controller');
    expect(controller.image).toBe('registry.example.com/ferrum:0.1.0');
    expect(controller.args).toEqual(['controller']);
    expect(controller.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(controller.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(controller.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(podSpec(deployment).nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });

    const service = findObject(rendered, 'Service', 'ferrum-controller');
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  it('gives the controller the settings it reads, secrets by reference', () => {
    const variables = env(container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(variables).toMatchObject({
      HOST: '0.0.0.0',
      PORT: '8080',
      REDIS_URL: 'redis://ferrum-redis:6379',
      FERRUM_KEY_PREFIX: 'ferrum:',
      LOG_LEVEL: 'info',
      FERRUM_BOOTSTRAP_EMAIL: 'admin@ferrum.local',
      FERRUM_BOOTSTRAP_TOKEN: { secretKeyRef: { name: 'ferrum-secrets', key: 'bootstrap-token' } },
      FERRUM_ENCRYPTION_KEY: { secretKeyRef: { name: 'ferrum-secrets', key: 'encryption-key' } },
    });
    const { secrets } = example('dind.yaml') as any;
    expect(findObject(rendered, 'Secret', 'ferrum-secrets').stringData).toEqual({
      'bootstrap-token': secrets.bootstrapToken,
      'encryption-key': secrets.encryptionKey,
    });
  });

  it('runs a Docker engine sidecar that starts before and stops after the runner', () => {
    const deployment = findObject(rendered, 'Deployment', 'ferrum-runner');
    expect(deployment.spec.replicas).toBe(3);
    const spec = podSpec(deployment);
    const dind = container(deployment, 'dind');
    expect(spec.initContainers.map((entry: any) => entry.name)).toEqual(['dind']);
    expect(dind.restartPolicy).toBe('Always');
    expect(dind.securityContext).toEqual({ privileged: true });
    expect(dind.args).toEqual(['dockerd', '--host=unix:///var/run/dind/docker.sock', '--group=2375']);
    expect(spec.securityContext.supplementalGroups).toEqual([2375]);

    const runner = container(deployment, 'runner');
    expect(runner.args).toEqual(['runner']);
    expect(env(runner)).toMatchObject({
      DOCKER_HOST: 'unix:///var/run/dind/docker.sock',
      REDIS_URL: 'redis://ferrum-redis:6379',
      FERRUM_RUNNER_SLOTS: '4',
      FERRUM_ENCRYPTION_KEY: { secretKeyRef: { name: 'ferrum-secrets', key: 'encryption-key' } },
    });
    expect(runner.volumeMounts).toContainEqual({ name: 'dind-socket', mountPath: '/var/run/dind' });
    expect(runner.volumeMounts).toContainEqual({ name: 'data', mountPath: '/var/lib/ferrum' });
    expect(runner.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(spec.volumes).toContainEqual({ name: 'dind-socket', emptyDir: {} });
    expect(spec.volumes).toContainEqual({ name: 'dind-storage', emptyDir: { sizeLimit: '20Gi' } });
    expect(spec.tolerations).toEqual([
      { effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: 'ferrum-runners' },
    ]);
    expect(runner.resources).toEqual({ requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } });
  });

  it('gives the runner a grace period longer than its drain, which covers the task timeout', () => {
    const deployment = findObject(rendered, 'Deployment', 'ferrum-runner');
    const drainMs = Number(env(container(deployment, 'runner')).FERRUM_RUNNER_DRAIN_MS);
    expect(drainMs).toBeGreaterThanOrEqual(3600 * 1000);
    expect(podSpec(deployment).terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs);
  });

  it('bundles one Redis StatefulSet with a persistent volume', () => {
    const statefulSet = findObject(rendered, 'StatefulSet', 'ferrum-redis');
    expect(statefulSet.spec.replicas).toBe(1);
    expect(statefulSet.spec.serviceName).toBe('ferrum-redis');
    const [claim] = statefulSet.spec.volumeClaimTemplates;
    expect(claim.metadata.name).toBe('data');
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast-ssd',
      resources: { requests: { storage: '20Gi' } },
    });
    expect(container(statefulSet, 'redis').volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(container(statefulSet, 'redis').args).toContain('--appendonly');
    expect(findObject(rendered, 'Service', 'ferrum-redis').spec.ports[0].port).toBe(6379);
  });

  it('annotates the controller pods for Prometheus and renders no ServiceMonitor by default', () => {
    const annotations = findObject(rendered, 'Deployment', 'ferrum-controller').spec.template.metadata.annotations;
    expect(annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '8080',
      'prometheus.io/path': '/metrics',
    });
    expect(rendered.objects.some((object) => object.kind === 'ServiceMonitor')).toBe(false);
  });

  it('tells in NOTES.txt how to get the token', () => {
    expect(rendered.notes).toContain(
      "kubectl get secret ferrum-secrets -n ferrum \\\n       -o jsonpath='{.data.bootstrap-token}' | base64 -d",
    );
    expect(rendered.notes).toContain('Docker mode "dind"');
  });
});

describe('templates: hostSocket mode, DaemonSet runners, Redis by URL (examples/host-socket.yaml)', () => {
  let rendered: RenderedChart;
  beforeAll(async () => {
    rendered = await renderChart(chartDir, example('host-socket.yaml'));
  });

  it('runs one runner per node through the node socket', () => {
    expectWellFormed(rendered);
    const daemonSet = findObject(rendered, 'DaemonSet', 'ferrum-runner');
    expect(daemonSet.spec.replicas).toBeUndefined();
    const spec = podSpec(daemonSet);
    expect(spec.initContainers).toBeUndefined();
    expect(spec.containers.map((entry: any) => entry.name)).toEqual(['runner']);
    expect(spec.volumes).toContainEqual({
      name: 'docker-socket',
      hostPath: { path: '/var/run/docker.sock', type: 'Socket' },
    });
    expect(spec.securityContext.supplementalGroups).toEqual([999]);
    expect(spec.nodeSelector).toEqual({ 'ferrum.dev/runner': 'true' });
    const runner = container(daemonSet, 'runner');
    expect(runner.volumeMounts).toContainEqual({ name: 'docker-socket', mountPath: '/var/run/docker.sock' });
    expect(env(runner).DOCKER_HOST).toBe('unix:///var/run/docker.sock');
    expect(
      rendered.objects.some((object) => object.kind === 'Deployment' && object.metadata.name === 'ferrum-runner'),
    ).toBe(false);
  });

  it('keeps the Redis URL in a Secret and bundles no Redis', () => {
    expect(rendered.objects.some((object) => object.kind === 'StatefulSet')).toBe(false);
    expect(findObject(rendered, 'Secret', 'ferrum-redis-url').stringData).toEqual({
      'redis-url': 'redis://:s3cret@redis.data.svc.cluster.local:6379/0',
    });
    for (const [kind, name, role] of [
      ['Deployment', 'ferrum-controller', 'controller'],
      ['DaemonSet', 'ferrum-runner', 'runner'],
    ] as const) {
      expect(env(container(findObject(rendered, kind, name), role)).REDIS_URL).toEqual({
        secretKeyRef: { name: 'ferrum-redis-url', key: 'redis-url' },
      });
    }
  });

  it('reads the token and key from the existing Secret and creates none of its own', () => {
    expect(
      rendered.objects.some((object) => object.kind === 'Secret' && object.metadata.name === 'ferrum-secrets'),
    ).toBe(false);
    const variables = env(container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(variables.FERRUM_BOOTSTRAP_TOKEN).toEqual({
      secretKeyRef: { name: 'ferrum-secrets', key: 'bootstrap-token' },
    });
    expect(rendered.notes).toContain('kubectl get secret ferrum-secrets -n ferrum');
  });

  it('renders the ServiceMonitor and the runner scrape annotations', () => {
    const monitor = findObject(rendered, 'ServiceMonitor', 'ferrum-controller');
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.metadata.labels).toMatchObject({ release: 'prometheus' });
    expect(monitor.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '15s' }]);
    expect(monitor.spec.selector.matchLabels).toEqual(
      findObject(rendered, 'Service', 'ferrum-controller').spec.selector,
    );
    const daemonSet = findObject(rendered, 'DaemonSet', 'ferrum-runner');
    expect(daemonSet.spec.template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9090',
      'prometheus.io/path': '/metrics',
    });
    expect(container(daemonSet, 'runner').ports).toEqual([{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }]);
  });
});

describe('templates: external Docker engine, Redis from a Secret (examples/external-docker.yaml)', () => {
  let rendered: RenderedChart;
  beforeAll(async () => {
    rendered = await renderChart(chartDir, example('external-docker.yaml'));
  });

  it('points the runner at DOCKER_HOST with TLS certificates from the Secret', () => {
    expectWellFormed(rendered);
    const deployment = findObject(rendered, 'Deployment', 'ferrum-runner');
    const spec = podSpec(deployment);
    expect(spec.containers.map((entry: any) => entry.name)).toEqual(['runner']);
    expect(spec.securityContext.supplementalGroups).toBeUndefined();
    const runner = container(deployment, 'runner');
    expect(env(runner)).toMatchObject({
      DOCKER_HOST: 'tcp://docker.build.internal:2376',
      DOCKER_TLS_VERIFY: '1',
      DOCKER_CERT_PATH: '/etc/ferrum/docker-tls',
      FERRUM_RUNNER_CLUSTER: 'gpu',
      FERRUM_RUNNER_DRAIN_MS: '7200000',
    });
    expect(runner.volumeMounts).toContainEqual({
      name: 'docker-tls',
      mountPath: '/etc/ferrum/docker-tls',
      readOnly: true,
    });
    expect(spec.volumes).toContainEqual({ name: 'docker-tls', secret: { secretName: 'ferrum-docker-tls' } });
    expect(spec.terminationGracePeriodSeconds).toBe(7260);
  });

  it('reads REDIS_URL from the existing Secret and key', () => {
    expect(rendered.objects.some((object) => object.kind === 'Secret')).toBe(false);
    const variables = env(container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(variables.REDIS_URL).toEqual({ secretKeyRef: { name: 'ferrum-redis', key: 'url' } });
    expect(variables).toMatchObject({ FERRUM_PUBLIC_HOST: 'ferrum.example.com', FERRUM_PUBLIC_SCHEME: 'https' });
    expect(findObject(rendered, 'Deployment', 'ferrum-controller').spec.replicas).toBe(3);
    expect(findObject(rendered, 'Service', 'ferrum-controller').spec.type).toBe('LoadBalancer');
  });
});

describe('templates: environment names', () => {
  // Set by the chart for services that read them outside loadConfig (the runner daemon, the
  // services that encrypt stored secrets) or for the Docker client library.
  const readElsewhere = new Set([
    'FERRUM_ENCRYPTION_KEY',
    'FERRUM_RUNNER_CLUSTER',
    'FERRUM_RUNNER_SLOTS',
    'FERRUM_RUNNER_DRAIN_MS',
    'DOCKER_HOST',
    'DOCKER_TLS_VERIFY',
    'DOCKER_CERT_PATH',
  ]);

  it('sets only variables that Ferrum reads', async () => {
    const read = new Set<string>();
    loadConfig(new Proxy({}, { get: (_target, name) => (read.add(String(name)), undefined) }));
    const names = new Set<string>();
    for (const file of exampleFiles) {
      const rendered = await renderChart(chartDir, example(file));
      for (const object of rendered.objects.filter((entry) => entry.spec?.template)) {
        for (const entry of podSpec(object).containers) {
          if (entry.name === 'controller' || entry.name === 'runner') for (const { name } of entry.env) names.add(name);
        }
      }
    }
    const unknown = [...names].filter((name) => !read.has(name) && !readElsewhere.has(name));
    expect(unknown).toEqual([]);
    expect(names).toContain('REDIS_URL');
  });
});

describe('templates: other values', () => {
  it('runs dind as an ordinary second container when native sidecars are off', async () => {
    const rendered = await renderChart(chartDir, {
      ...inlineSecrets,
      runner: { docker: { dind: { nativeSidecar: false } } },
    });
    const spec = podSpec(findObject(rendered, 'Deployment', 'ferrum-runner'));
    expect(spec.initContainers).toBeUndefined();
    expect(spec.containers.map((entry: any) => entry.name)).toEqual(['runner', 'dind']);
    expect(spec.containers[1].restartPolicy).toBeUndefined();
  });

  it('passes extra env, pod annotations, affinity and pull secrets through unchanged', async () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
        },
      },
    };
    const rendered = await renderChart(chartDir, {
      ...inlineSecrets,
      imagePullSecrets: ['regcred'],
      metrics: { podAnnotations: false },
      controller: {
        affinity,
        podAnnotations: { 'example.com/team': 'platform "core"' },
        extraEnv: [
          { name: 'FERRUM_TOKEN_CACHE_MS', value: '1000' },
          { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
      },
      runner: { enabled: false },
      redis: { url: 'redis://r:6379', bundled: { enabled: false } },
    });
    const deployment = findObject(rendered, 'Deployment', 'ferrum-controller');
    const spec = podSpec(deployment);
    expect(spec.affinity).toEqual(affinity);
    expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(deployment.spec.template.metadata.annotations).toEqual({ 'example.com/team': 'platform "core"' });
    expect(env(container(deployment, 'controller'))).toMatchObject({
      FERRUM_TOKEN_CACHE_MS: '1000',
      FROM_SECRET: { secretKeyRef: { name: 's', key: 'k' } },
    });
    expect(rendered.objects.some((object) => object.metadata.name === 'ferrum-runner')).toBe(false);
    expect(rendered.notes).not.toContain('Runners:');
  });

  it('names every object after the release', async () => {
    const rendered = await renderChart(chartDir, inlineSecrets, { name: 'prod', namespace: 'apps' });
    expect(rendered.objects.map((object) => object.metadata.name).sort()).toEqual([
      'prod-controller',
      'prod-controller',
      'prod-redis',
      'prod-redis',
      'prod-runner',
      'prod-secrets',
    ]);
    expect(rendered.objects.every((object) => object.metadata.namespace === 'apps')).toBe(true);
    expect(env(container(findObject(rendered, 'Deployment', 'prod-runner'), 'runner')).REDIS_URL).toBe(
      'redis://prod-redis:6379',
    );
  });

  it('refuses to render without a Secret or both secret values', async () => {
    await expect(renderChart(chartDir, {})).rejects.toThrow(
      /set secrets.existingSecret, or both secrets.bootstrapToken and secrets.encryptionKey/,
    );
    await expect(renderChart(chartDir, { secrets: { bootstrapToken: 'a'.repeat(40) } })).rejects.toThrow(
      /secrets.existingSecret/,
    );
  });

  it('refuses a grace period that does not exceed the drain', async () => {
    await expect(
      renderChart(chartDir, { ...inlineSecrets, runner: { drainSeconds: 5000, terminationGracePeriodSeconds: 4000 } }),
    ).rejects.toThrow(/runner.terminationGracePeriodSeconds must exceed runner.drainSeconds/);
  });
});
