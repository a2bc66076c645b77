import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, shutdownTimeoutMs } from '../../src/core/config.js';
import {
  chartValues,
  findObject,
  readYamlFile,
  renderChart,
  type KubeObject,
  valuesSchemaErrors,
  type RenderedChart,
  type Values,
} from '../helpers/chart.js';
import { chartDir, everyOptionalObject, example, exampleFiles, inlineSecrets } from '../helpers/chart-values.js';

const appVersion = (readYamlFile(path.join(chartDir, 'Chart.yaml')) as { appVersion: string }).appVersion;

const schemaErrors = (values: Values) => valuesSchemaErrors(chartDir, values);

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
    expect(object.apiVersion, `${object.kind} apiVersion`).toMatch(/^([a-z0-9.]+\/)?v[0-9]+$/);
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
    expect(exampleFiles).toEqual([
      'dind.yaml',
      'external-docker.yaml',
      'gateway-runners.yaml',
      'host-socket.yaml',
      'redis-cluster.yaml',
    ]);
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
    ['a negative drain', { runner: { drainSeconds: -1 } }, '/runner/drainSeconds must be >= 0'],
    ['a short Redis password', { secrets: { redisPassword: 'short' } }, '/secrets/redisPassword must match pattern'],
    ['a nameOverride that is no DNS label', { nameOverride: 'Ferrum_X' }, '/nameOverride must match pattern'],
    ['an Ingress without hosts', { ingress: { enabled: true } }, '/ingress/hosts must NOT have fewer than 1 items'],
    [
      'an HPA with a CPU target above 100%',
      { controller: { autoscaling: { targetCPUUtilizationPercentage: 150 } } },
      '/controller/autoscaling/targetCPUUtilizationPercentage must be <= 100',
    ],
    [
      'a PrometheusRule with a zero wait',
      { metrics: { prometheusRule: { taskWaitSeconds: 0 } } },
      '/metrics/prometheusRule/taskWaitSeconds must be >= 1',
    ],
    ['zero controller replicas', { controller: { replicas: 0 } }, '/controller/replicas must be >= 1'],
    [
      'gateway runners without a token Secret',
      { runner: { mode: 'gateway' } },
      '/runner/gateway/tokenSecret must NOT have fewer than 1 characters',
    ],
    [
      'an unknown runner mode',
      { runner: { mode: 'relay' } },
      '/runner/mode must be equal to one of the allowed values',
    ],
    [
      'a gateway API URL that is not http(s)',
      { runner: { mode: 'gateway', gateway: { apiUrl: 'ferrum:8080', tokenSecret: 't' } } },
      '/runner/gateway/apiUrl must match pattern',
    ],
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
      '/redis must match a schema in anyOf',
    ],
    [
      'external Redis with both URL and Secret',
      { redis: { url: 'redis://r:6379', existingSecret: 's', bundled: { enabled: false } } },
      '/redis must match exactly one schema in oneOf',
    ],
    ['a bundled Redis in cluster mode', { redis: { mode: 'cluster' } }, '/redis/mode must be equal to constant'],
    [
      'an unknown Redis topology',
      { redis: { mode: 'ring', url: 'redis://r:6379', bundled: { enabled: false } } },
      '/redis/mode must be equal to one of the allowed values',
    ],
    [
      'Cluster seeds that are not host:port',
      { redis: { mode: 'cluster', url: 'r1,r2', bundled: { enabled: false } } },
      '/redis/url must match pattern',
    ],
    [
      'an unknown appendfsync for the bundled Redis',
      { redis: { bundled: { appendfsync: 'sometimes' } } },
      '/redis/bundled/appendfsync must be equal to one of the allowed values',
    ],
    [
      'TLS Sentinels (Ferrum refuses rediss:// in sentinel mode)',
      { redis: { mode: 'sentinel', url: 'rediss://:pw@s1:26379,s2:26379', bundled: { enabled: false } } },
      '/redis/url must NOT be valid',
    ],
    [
      'TLS Cluster seeds (Ferrum refuses rediss:// in cluster mode)',
      { redis: { mode: 'cluster', url: 'redis://n1:7000,rediss://n2:7001', bundled: { enabled: false } } },
      '/redis/url must NOT be valid',
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
      'NetworkPolicy/ferrum-controller',
      'NetworkPolicy/ferrum-redis',
      'NetworkPolicy/ferrum-runner',
      'Pod/ferrum-test-ready',
      'PodDisruptionBudget/ferrum-controller',
      'PodDisruptionBudget/ferrum-runner',
      'Secret/ferrum-secrets',
      'Service/ferrum-controller',
      'Service/ferrum-redis',
      'ServiceAccount/ferrum',
      'StatefulSet/ferrum-redis',
    ]);
  });

  it('runs the controller with probes on /health and /ready behind a Service', () => {
    const deployment = findObject(rendered, 'Deployment', 'ferrum-controller');
    expect(deployment.spec.replicas).toBe(2);
    const controller = container(deployment, 'controller');
    // The example sets no tag: the chart's appVersion.
    expect(controller.image).toBe(`registry.example.com/ferrum:${appVersion}`);
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
      REDIS_PASSWORD: { secretKeyRef: { name: 'ferrum-secrets', key: 'redis-password' } },
      REDIS_URL: 'redis://:$(REDIS_PASSWORD)@ferrum-redis:6379',
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
      'redis-password': secrets.redisPassword,
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
      REDIS_PASSWORD: { secretKeyRef: { name: 'ferrum-secrets', key: 'redis-password' } },
      REDIS_URL: 'redis://:$(REDIS_PASSWORD)@ferrum-redis:6379',
      FERRUM_RUNNER_SLOTS: '4',
      FERRUM_ENCRYPTION_KEY: { secretKeyRef: { name: 'ferrum-secrets', key: 'encryption-key' } },
    });
    expect(runner.volumeMounts).toContainEqual({ name: 'dind-socket', mountPath: '/var/run/dind' });
    // http-stream function sockets: one emptyDir, the same path in the runner and the engine.
    expect(env(runner).FERRUM_FUNCTIONS_SOCKET_DIR).toBe('/var/run/ferrum-fn-sockets');
    expect(runner.volumeMounts).toContainEqual({ name: 'fn-sockets', mountPath: '/var/run/ferrum-fn-sockets' });
    expect(dind.volumeMounts).toContainEqual({ name: 'fn-sockets', mountPath: '/var/run/ferrum-fn-sockets' });
    expect(spec.volumes).toContainEqual({ name: 'fn-sockets', emptyDir: {} });
    expect(runner.volumeMounts).toContainEqual({ name: 'data', mountPath: '/var/lib/ferrum' });
    expect(runner.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(spec.volumes).toContainEqual({ name: 'dind-socket', emptyDir: {} });
    expect(spec.volumes).toContainEqual({ name: 'dind-storage', emptyDir: { sizeLimit: '20Gi' } });
    expect(spec.tolerations).toEqual([
      { effect: 'NoSchedule', key: 'dedicated', operator: 'Equal', value: 'ferrum-runners' },
    ]);
    expect(runner.resources).toEqual({ requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } });
  });

  it('gives the runner a grace period longer than its drain', () => {
    const deployment = findObject(rendered, 'Deployment', 'ferrum-runner');
    const drainMs = Number(env(container(deployment, 'runner')).FERRUM_RUNNER_DRAIN_MS);
    expect(drainMs).toBe(300 * 1000);
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
    expect(container(statefulSet, 'redis').volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'config', mountPath: '/run/redis' },
    ]);
    expect(container(statefulSet, 'redis').args).toContain('--appendonly');
    expect(findObject(rendered, 'Service', 'ferrum-redis').spec.ports[0].port).toBe(6379);
  });

  it('fsyncs the bundled Redis every second by default', () => {
    const args: string[] = container(findObject(rendered, 'StatefulSet', 'ferrum-redis'), 'redis').args;
    expect(args.slice(args.indexOf('--appendonly'), args.indexOf('--appendonly') + 4)).toEqual([
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
    ]);
  });

  it('annotates the controller pods for Prometheus and renders no ServiceMonitor by default', () => {
    const annotations = findObject(rendered, 'Deployment', 'ferrum-controller').spec.template.metadata.annotations;
    expect(annotations).toEqual({
      'checksum/secret': expect.stringMatching(/^[0-9a-f]{64}$/),
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
    expect(spec.initContainers.map((entry: any) => entry.name)).toEqual(['fn-sockets']);
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

  it("shares the http-stream socket folder with the node's engine at the same path", () => {
    const daemonSet = findObject(rendered, 'DaemonSet', 'ferrum-runner');
    const spec = podSpec(daemonSet);
    const folder = '/var/run/ferrum-fn-sockets';
    expect(spec.volumes).toContainEqual({ name: 'fn-sockets', hostPath: { path: folder, type: 'DirectoryOrCreate' } });
    const runner = container(daemonSet, 'runner');
    expect(env(runner).FERRUM_FUNCTIONS_SOCKET_DIR).toBe(folder);
    expect(runner.volumeMounts).toContainEqual({ name: 'fn-sockets', mountPath: folder });
    // The kubelet makes the folder for root; the init container opens it to the runner's user.
    const opener = container(daemonSet, 'fn-sockets');
    expect(opener.command).toEqual(['node', '-e', "require('fs').chmodSync(process.argv[1], 0o1777)", folder]);
    expect(opener.securityContext).toMatchObject({
      runAsUser: 0,
      runAsNonRoot: false,
      allowPrivilegeEscalation: false,
    });
    expect(opener.volumeMounts).toEqual([{ name: 'fn-sockets', mountPath: folder }]);
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
      'checksum/secret': expect.stringMatching(/^[0-9a-f]{64}$/),
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

describe('templates: an external Redis Cluster or Sentinel (examples/redis-cluster.yaml)', () => {
  it('tells every role the topology and reads the seeds from the Secret', async () => {
    const rendered = await renderChart(chartDir, example('redis-cluster.yaml'));
    expect(rendered.objects.some((object) => object.kind === 'StatefulSet')).toBe(false);
    const settings = env(container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(settings.FERRUM_REDIS_MODE).toBe('cluster');
    expect(settings.FERRUM_REDIS_SENTINEL_MASTER).toBeUndefined();
    expect(settings.REDIS_URL).toEqual({ secretKeyRef: { name: 'ferrum-redis', key: 'redis-url' } });
  });

  it('names the Sentinel master in sentinel mode', async () => {
    const values = {
      ...example('redis-cluster.yaml'),
      redis: { mode: 'sentinel', sentinelMaster: 'main', url: 's1:26379,s2:26379', bundled: { enabled: false } },
    };
    expect(schemaErrors(chartValues(chartDir, values))).toEqual([]);
    const rendered = await renderChart(chartDir, values);
    const settings = env(container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(settings.FERRUM_REDIS_MODE).toBe('sentinel');
    expect(settings.FERRUM_REDIS_SENTINEL_MASTER).toBe('main');
  });

  it('takes rediss:// only where Ferrum does: standalone', () => {
    const external = (mode: string, url: string) =>
      chartValues(chartDir, {
        ...example('redis-cluster.yaml'),
        redis: { mode, url, existingSecret: '', bundled: { enabled: false } },
      });
    const accepted = (mode: string, url: string) => {
      let server = true;
      try {
        loadConfig({ FERRUM_REDIS_MODE: mode, REDIS_URL: url });
      } catch {
        server = false;
      }
      return { schema: schemaErrors(external(mode, url)).length === 0, server };
    };
    expect(accepted('standalone', 'rediss://:pw@db:6380/0')).toEqual({ schema: true, server: true });
    for (const mode of ['sentinel', 'cluster']) {
      expect(accepted(mode, 'redis://:pw@n1:7000,n2:7001'), mode).toEqual({ schema: true, server: true });
      expect(accepted(mode, 'rediss://:pw@n1:7000,n2:7001'), mode).toEqual({ schema: false, server: false });
      expect(accepted(mode, 'redis://:pw@n1:7000,rediss://n2:7001'), mode).toEqual({ schema: false, server: false });
    }
  });
});

describe('templates: gateway runners only (examples/gateway-runners.yaml)', () => {
  let rendered: RenderedChart;
  beforeAll(async () => {
    rendered = await renderChart(chartDir, example('gateway-runners.yaml'));
  });

  it('renders the runners alone: no controller, Redis, Secret or helm test', () => {
    expectWellFormed(rendered);
    const kinds = rendered.objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    expect(kinds).toEqual(['Deployment/ferrum-runner', 'PodDisruptionBudget/ferrum-runner', 'ServiceAccount/ferrum']);
  });

  it('gives the runner the API URL and the token from its Secret, and no Redis URL, password or key', () => {
    const runner = container(findObject(rendered, 'Deployment', 'ferrum-runner'), 'runner');
    const variables = env(runner);
    expect(variables).toMatchObject({
      FERRUM_API_URL: 'https://ferrum.example.com',
      FERRUM_RUNNER_TOKEN: { secretKeyRef: { name: 'ferrum-runner-token', key: 'runner-token' } },
    });
    for (const name of ['REDIS_URL', 'REDIS_PASSWORD', 'FERRUM_ENCRYPTION_KEY', 'FERRUM_KEY_PREFIX'])
      expect(variables, name).not.toHaveProperty(name);
    expect(JSON.stringify(rendered.objects)).not.toMatch(/redis:\/\/|encryption-key/);
  });

  it('refuses gateway runners without a token Secret, or without an API URL when no controller is installed', async () => {
    await expect(renderChart(chartDir, { ...inlineSecrets, runner: { mode: 'gateway' } })).rejects.toThrow(
      /runner.mode gateway needs runner.gateway.tokenSecret/,
    );
    const noUrl = { ...example('gateway-runners.yaml'), runner: { mode: 'gateway', gateway: { tokenSecret: 't' } } };
    await expect(renderChart(chartDir, noUrl)).rejects.toThrow(/need runner.gateway.apiUrl/);
  });

  it("in a release with controllers, gateway runners call this release's controller Service", async () => {
    const values = { ...inlineSecrets, runner: { mode: 'gateway', gateway: { tokenSecret: 'runner-token' } } };
    const withControllers = await renderChart(chartDir, values);
    const variables = env(container(findObject(withControllers, 'Deployment', 'ferrum-runner'), 'runner'));
    expect(variables.FERRUM_API_URL).toBe('http://ferrum-controller:80');
    expect(variables).not.toHaveProperty('REDIS_URL');
    const controller = env(container(findObject(withControllers, 'Deployment', 'ferrum-controller'), 'controller'));
    expect(controller).toHaveProperty('REDIS_URL');
  });
});

describe('templates: environment names', () => {
  // Set by the chart for services that read them outside loadConfig (the runner daemon, the
  // services that encrypt stored secrets) or for the Docker client library.
  const readElsewhere = new Set([
    // Only for Kubernetes to put into REDIS_URL as $(REDIS_PASSWORD).
    'REDIS_PASSWORD',
    'FERRUM_ENCRYPTION_KEY',
    'FERRUM_RUNNER_CLUSTER',
    'FERRUM_RUNNER_SLOTS',
    'FERRUM_RUNNER_DRAIN_MS',
    'DOCKER_HOST',
    'DOCKER_TLS_VERIFY',
    'DOCKER_CERT_PATH',
    // Read by the runner in gateway mode (runner/main.ts).
    'FERRUM_API_URL',
    'FERRUM_RUNNER_TOKEN',
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

  it("believes the forwarded client address from its ingress's pods only when the ingress is enabled", async () => {
    const controllerEnv = async (values: object) =>
      env(
        container(
          findObject(await renderChart(chartDir, { ...inlineSecrets, ...values }), 'Deployment', 'ferrum-controller'),
          'controller',
        ),
      );
    expect(await controllerEnv({})).not.toHaveProperty('FERRUM_TRUST_PROXY');
    expect(await controllerEnv({ ingress: { enabled: true, hosts: ['ferrum.example.com'] } })).toMatchObject({
      FERRUM_TRUST_PROXY: '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7',
    });
    expect(
      await controllerEnv({
        ingress: { enabled: true, hosts: ['ferrum.example.com'], trustedProxies: '10.42.0.0/16' },
      }),
    ).toMatchObject({ FERRUM_TRUST_PROXY: '10.42.0.0/16' });
  });

  it("serves function calls on a port and host of their own when asked, through the controller's Service", async () => {
    const rendered = await renderChart(chartDir, {
      ...inlineSecrets,
      controller: { functions: { port: 8081, servicePort: 81, host: 'fn.example.com' } },
    });
    const deployment = findObject(rendered, 'Deployment', 'ferrum-controller');
    const controller = container(deployment, 'controller');
    expect(controller.ports).toContainEqual({ name: 'functions', containerPort: 8081, protocol: 'TCP' });
    expect(env(controller)).toMatchObject({ FERRUM_FUNCTIONS_PORT: '8081', FERRUM_FUNCTIONS_HOST: 'fn.example.com' });
    const service = findObject(rendered, 'Service', 'ferrum-controller');
    expect(service.spec.ports).toContainEqual({
      name: 'functions',
      port: 81,
      targetPort: 'functions',
      protocol: 'TCP',
    });
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
    expect(deployment.spec.template.metadata.annotations).toEqual({
      'checksum/secret': expect.stringMatching(/^[0-9a-f]{64}$/),
      'example.com/team': 'platform "core"',
    });
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
      'prod',
      'prod-controller',
      'prod-controller',
      'prod-controller',
      'prod-controller',
      'prod-redis',
      'prod-redis',
      'prod-redis',
      'prod-runner',
      'prod-runner',
      'prod-runner',
      'prod-secrets',
      'prod-test-ready',
    ]);
    expect(rendered.objects.every((object) => object.metadata.namespace === 'apps')).toBe(true);
    expect(env(container(findObject(rendered, 'Deployment', 'prod-runner'), 'runner')).REDIS_URL).toBe(
      'redis://:$(REDIS_PASSWORD)@prod-redis:6379',
    );
  });

  it("runs the chart's appVersion unless image.tag names another build", async () => {
    // Ferrum's own containers: the controller, the runner and the helm test pod (not Redis or dind).
    const images = (rendered: RenderedChart): string[] =>
      podSpecsOf(rendered).flatMap(([, spec]) =>
        spec.containers.filter((entry: any) => entry.name !== 'redis').map((entry: any) => entry.image),
      );
    const byDefault = images(await renderChart(chartDir, inlineSecrets));
    expect(new Set(byDefault)).toEqual(new Set([`ferrum:${appVersion}`]));
    const tagged = images(await renderChart(chartDir, { ...inlineSecrets, image: { tag: '9.9.9-rc.1' } }));
    expect(new Set(tagged)).toEqual(new Set(['ferrum:9.9.9-rc.1']));
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

/** What Pod Security "restricted" refuses in a pod spec (the checks of the Kubernetes policy). */
function restrictedViolations(spec: any): string[] {
  const problems: string[] = [];
  const allowedVolumes = [
    'configMap',
    'csi',
    'downwardAPI',
    'emptyDir',
    'ephemeral',
    'persistentVolumeClaim',
    'projected',
    'secret',
    'name',
  ];
  for (const volume of spec.volumes ?? []) {
    for (const key of Object.keys(volume))
      if (!allowedVolumes.includes(key)) problems.push(`volume ${volume.name}: ${key}`);
  }
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) problems.push('host namespaces');
  const podSeccomp = spec.securityContext?.seccompProfile?.type;
  for (const entry of [...spec.containers, ...(spec.initContainers ?? [])]) {
    const context = entry.securityContext ?? {};
    if (context.privileged) problems.push(`${entry.name}: privileged`);
    if (context.allowPrivilegeEscalation !== false) problems.push(`${entry.name}: allowPrivilegeEscalation`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) problems.push(`${entry.name}: capabilities not dropped`);
    for (const added of context.capabilities?.add ?? [])
      if (added !== 'NET_BIND_SERVICE') problems.push(`${entry.name}: adds ${added}`);
    if (!(context.runAsNonRoot ?? spec.securityContext?.runAsNonRoot)) problems.push(`${entry.name}: may run as root`);
    const seccomp = context.seccompProfile?.type ?? podSeccomp;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') problems.push(`${entry.name}: seccomp ${seccomp}`);
  }
  return problems;
}

function podSpecsOf(rendered: RenderedChart): [string, any][] {
  return rendered.objects.flatMap((object): [string, any][] => {
    if (object.kind === 'Pod') return [[`Pod/${object.metadata.name}`, object.spec]];
    return object.spec?.template ? [[`${object.kind}/${object.metadata.name}`, podSpec(object)]] : [];
  });
}

describe('templates: operations', () => {
  it('passes Pod Security "restricted" in external Docker mode, bundled Redis included; NOTES name the modes that cannot', async () => {
    const external = await renderChart(chartDir, {
      ...inlineSecrets,
      runner: { docker: { mode: 'external', external: { host: 'tcp://docker:2376' } } },
    });
    for (const [name, spec] of podSpecsOf(external)) expect(restrictedViolations(spec), name).toEqual([]);
    expect(external.notes).toContain('passes Pod Security "restricted"');

    const dind = await renderChart(chartDir, example('dind.yaml'));
    expect(restrictedViolations(podSpec(findObject(dind, 'Deployment', 'ferrum-runner')))).toContain(
      'dind: privileged',
    );
    expect(dind.notes).toContain('pod-security.kubernetes.io/enforce=privileged');
    for (const [name, spec] of podSpecsOf(dind).filter(([name]) => !name.endsWith('-runner')))
      expect(restrictedViolations(spec), name).toEqual([]);
  });

  it('gives every pod RuntimeDefault seccomp and a ServiceAccount without an API token', async () => {
    const rendered = await renderChart(chartDir, example('dind.yaml'));
    for (const [name, spec] of podSpecsOf(rendered)) {
      expect(spec.securityContext.seccompProfile, name).toEqual({ type: 'RuntimeDefault' });
      expect(spec.serviceAccountName, name).toBe('ferrum');
      expect(spec.automountServiceAccountToken, name).toBe(false);
    }
    expect(findObject(rendered, 'ServiceAccount', 'ferrum').automountServiceAccountToken).toBe(false);
  });

  it('names objects after nameOverride or fullnameOverride', async () => {
    const named = await renderChart(chartDir, { ...inlineSecrets, nameOverride: 'queues' });
    const deployment = findObject(named, 'Deployment', 'ferrum-queues-controller');
    expect(deployment.metadata.labels?.['app.kubernetes.io/name']).toBe('queues');
    expect(deployment.spec.selector.matchLabels['app.kubernetes.io/name']).toBe('queues');
    const full = await renderChart(chartDir, { ...inlineSecrets, fullnameOverride: 'iron' });
    expect(full.objects.map((object) => object.metadata.name)).toContain('iron-controller');
    expect(env(container(findObject(full, 'Deployment', 'iron-runner'), 'runner')).REDIS_URL).toBe(
      'redis://:$(REDIS_PASSWORD)@iron-redis:6379',
    );
  });

  it('protects the controllers with a PodDisruptionBudget, spreads them, and scales them with an optional HPA', async () => {
    const fixed = await renderChart(chartDir, inlineSecrets);
    const budget = findObject(fixed, 'PodDisruptionBudget', 'ferrum-controller');
    const deployment = findObject(fixed, 'Deployment', 'ferrum-controller');
    expect(budget.spec.minAvailable).toBe(1);
    expect(budget.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(podSpec(deployment).topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: deployment.spec.selector.matchLabels },
      },
    ]);
    expect(fixed.objects.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);

    const scaled = await renderChart(chartDir, {
      ...inlineSecrets,
      controller: { autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 12 } },
    });
    const hpa = findObject(scaled, 'HorizontalPodAutoscaler', 'ferrum-controller');
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'ferrum-controller' },
      minReplicas: 3,
      maxReplicas: 12,
    });
    expect(hpa.spec.metrics[0].resource.target).toEqual({ type: 'Utilization', averageUtilization: 70 });
    expect(findObject(scaled, 'Deployment', 'ferrum-controller').spec.replicas).toBeUndefined();
  });

  it('renders an Ingress with TLS when enabled', async () => {
    const rendered = await renderChart(chartDir, {
      ...inlineSecrets,
      ingress: {
        enabled: true,
        className: 'nginx',
        hosts: ['ferrum.example.com'],
        tls: [{ hosts: ['ferrum.example.com'], secretName: 'ferrum-tls' }],
      },
    });
    const ingress = findObject(rendered, 'Ingress', 'ferrum-controller');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.spec.tls).toEqual([{ hosts: ['ferrum.example.com'], secretName: 'ferrum-tls' }]);
    expect(ingress.spec.rules[0].host).toBe('ferrum.example.com');
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({
      name: 'ferrum-controller',
      port: { name: 'http' },
    });
  });

  it('fsyncs the bundled Redis as redis.bundled.appendfsync says', async () => {
    const values = { ...inlineSecrets, redis: { bundled: { appendfsync: 'always' } } };
    expect(schemaErrors(chartValues(chartDir, values))).toEqual([]);
    const rendered = await renderChart(chartDir, values);
    const args: string[] = container(findObject(rendered, 'StatefulSet', 'ferrum-redis'), 'redis').args;
    expect(args[args.indexOf('--appendfsync') + 1]).toBe('always');
    expect(args.filter((arg) => arg === '--appendfsync')).toHaveLength(1);
  });

  it('locks the bundled Redis: a password from the Secret, a NetworkPolicy, a hardened container', async () => {
    const rendered = await renderChart(chartDir, inlineSecrets);
    const redis = container(findObject(rendered, 'StatefulSet', 'ferrum-redis'), 'redis');
    // The password reaches redis-server through a config file in memory, never its command line.
    expect(JSON.stringify([redis.command, redis.args])).not.toMatch(/REDIS_PASSWORD\)|--requirepass/);
    expect(redis.command.slice(0, 2)).toEqual(['sh', '-c']);
    expect(redis.command[2]).toContain(`printf 'requirepass "%s"\\n' "$REDIS_PASSWORD" > /run/redis/auth.conf`);
    expect(redis.command[2]).toContain('exec redis-server /run/redis/auth.conf "$@"');
    expect(podSpec(findObject(rendered, 'StatefulSet', 'ferrum-redis')).volumes).toContainEqual({
      name: 'config',
      emptyDir: { medium: 'Memory', sizeLimit: '1Mi' },
    });
    expect(env(redis).REDIS_PASSWORD).toEqual({ secretKeyRef: { name: 'ferrum-secrets', key: 'redis-password' } });
    expect(redis.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(redis.livenessProbe.exec.command.join(' ')).toContain('REDISCLI_AUTH');
    const policy = findObject(rendered, 'NetworkPolicy', 'ferrum-redis');
    expect(policy.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('redis');
    expect(policy.spec.ingress[0].from[0].podSelector.matchExpressions).toContainEqual({
      key: 'app.kubernetes.io/component',
      operator: 'In',
      values: ['controller', 'runner'],
    });
    expect(findObject(rendered, 'Secret', 'ferrum-secrets').metadata.annotations).toEqual({
      'helm.sh/resource-policy': 'keep',
    });
    await expect(
      renderChart(chartDir, { secrets: { bootstrapToken: 'a'.repeat(40), encryptionKey: 'b'.repeat(64) } }),
    ).rejects.toThrow(/the bundled Redis needs a password/);
  });

  it('probes runners on /health and scrapes them with a PodMonitor beside the ServiceMonitor', async () => {
    const rendered = await renderChart(chartDir, { ...inlineSecrets, metrics: { serviceMonitor: { enabled: true } } });
    const runner = container(findObject(rendered, 'Deployment', 'ferrum-runner'), 'runner');
    expect(runner.livenessProbe.httpGet).toEqual({ path: '/health', port: 'metrics' });
    expect(runner.readinessProbe.httpGet).toEqual({ path: '/health', port: 'metrics' });
    const monitor = findObject(rendered, 'PodMonitor', 'ferrum-runner');
    expect(monitor.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
  });

  it('ships alerts and a Grafana dashboard whose queries name Ferrum metrics, with Prometheus/Grafana braces intact', async () => {
    const rendered = await renderChart(chartDir, {
      ...inlineSecrets,
      metrics: {
        prometheusRule: { enabled: true, taskWaitSeconds: 900, messageWaitSeconds: 7200 },
        grafanaDashboard: { enabled: true },
      },
    });
    const rules = findObject(rendered, 'PrometheusRule', 'ferrum').spec.groups[0].rules;
    const byName = new Map<string, any>(rules.map((rule: any) => [rule.alert, rule]));
    expect([...byName.keys()]).toEqual([
      'FerrumTargetDown',
      'FerrumRedisUnreachable',
      'FerrumRedisRefusingWrites',
      'FerrumRedisMemoryHigh',
      'FerrumRedisErrors',
      'FerrumMetricsStale',
      'FerrumNoRunners',
      'FerrumRunnersSaturated',
      'FerrumTasksWaitingTooLong',
      'FerrumMessagesWaitingTooLong',
      'FerrumTaskErrors',
      'FerrumHttp5xx',
      'FerrumPushFailures',
      'FerrumNoLeader',
    ]);
    expect(byName.get('FerrumTasksWaitingTooLong').expr).toContain('> 900');
    expect(byName.get('FerrumMessagesWaitingTooLong').expr).toContain(
      'ferrum_mq_oldest_message_age_max_seconds) > 7200',
    );
    expect(byName.get('FerrumNoRunners').annotations.summary).toContain('{{ $labels.cluster }}');
    expect(byName.get('FerrumTargetDown').expr).toBe('up{job=~"(.+/)?ferrum-(controller|runner)"} == 0');
    expect(byName.get('FerrumRedisErrors').expr).toContain('[5m]');
    expect(byName.get('FerrumRedisMemoryHigh').expr).toMatch(/ferrum_redis_memory_max_bytes > 0\)\) > 0\.9$/);
    expect(byName.get('FerrumRunnersSaturated').for).toBe('15m');
    const { data } = findObject(rendered, 'ConfigMap', 'ferrum-dashboard') as { data?: Record<string, string> };
    const dashboard = JSON.parse(data!['ferrum.json']!);
    const queries = dashboard.panels.flatMap((panel: any) => panel.targets);
    expect(queries.length).toBeGreaterThan(10);
    for (const query of queries) expect(query.expr).toMatch(/ferrum_[a-z_]+/);
    expect(queries.map((query: any) => query.legendFormat)).toContain('{{cluster}}');
  });

  it('rolls controller, runner and bundled Redis pods when a secret value changes, and only then', async () => {
    const checksums = async (values: Values) => {
      const rendered = await renderChart(chartDir, values);
      return [
        findObject(rendered, 'Deployment', 'ferrum-controller'),
        findObject(rendered, 'Deployment', 'ferrum-runner'),
        findObject(rendered, 'StatefulSet', 'ferrum-redis'),
      ].map((object) => object.spec.template.metadata.annotations['checksum/secret']);
    };
    const before = await checksums(inlineSecrets);
    expect(before[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(before).toEqual([before[0], before[0], before[0]]);
    expect(await checksums({ ...inlineSecrets, controller: { replicas: 3 } })).toEqual(before);
    const rotated = await checksums({ secrets: { ...inlineSecrets.secrets, bootstrapToken: 'd'.repeat(40) } });
    expect(rotated[0]).not.toBe(before[0]);
    expect(rotated).toEqual([rotated[0], rotated[0], rotated[0]]);
    // A new Redis password restarts Redis with it, together with the clients that use it.
    const newPassword = await checksums({ secrets: { ...inlineSecrets.secrets, redisPassword: 'e'.repeat(32) } });
    expect(newPassword[2]).not.toBe(before[2]);
    expect(newPassword).toEqual([newPassword[2], newPassword[2], newPassword[2]]);
  });

  it('keeps every name a DNS label of at most 63 characters, however long the release name', async () => {
    // Helm's longest release name (53) and nameOverride's longest (32); the 46th character is a
    // "-", which the cut must drop, and the prefix of component names is different from the
    // fullname then. Every optional object is on.
    const release = `${'r'.repeat(45)}-release`;
    const cases: [string, Values, string][] = [
      ['a long release name and nameOverride', { ...everyOptionalObject, nameOverride: 'n'.repeat(32) }, release],
      ['a 63-character fullnameOverride', { ...everyOptionalObject, fullnameOverride: `${'f'.repeat(62)}x` }, 'ferrum'],
      [
        'an external Redis by URL',
        { ...everyOptionalObject, redis: { url: 'redis://r:6379', bundled: { enabled: false } } },
        release,
      ],
    ];
    for (const [label, values, name] of cases) {
      expect(schemaErrors(chartValues(chartDir, values)), label).toEqual([]);
      const rendered = await renderChart(chartDir, values, { name, namespace: 'ferrum' });
      const names = rendered.objects.map((object) => `${object.kind}/${object.metadata.name}`);
      expect(new Set(names).size, `${label}: ${names.join(', ')}`).toBe(names.length);
      for (const object of rendered.objects) {
        const where = `${label}: ${object.kind}/${object.metadata.name}`;
        expect(object.metadata.name.length, where).toBeLessThanOrEqual(63);
        expect(object.metadata.name, where).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
        // A StatefulSet's pods carry controller-revision-hash "<name>-<10-character hash>".
        if (object.kind === 'StatefulSet') expect(object.metadata.name.length, where).toBeLessThanOrEqual(52);
        for (const [key, value] of Object.entries(object.metadata.labels ?? {}))
          expect(value.length, `${where} label ${key}`).toBeLessThanOrEqual(63);
      }
      // References between objects use the same cut names.
      const present = new Set(names);
      const controller = rendered.objects.find(
        (object) => object.kind === 'Deployment' && object.metadata.name.endsWith('-controller'),
      )!;
      const hpa = rendered.objects.find((object) => object.kind === 'HorizontalPodAutoscaler')!;
      expect(present.has(`Deployment/${hpa.spec.scaleTargetRef.name}`), label).toBe(true);
      const ingress = rendered.objects.find((object) => object.kind === 'Ingress')!;
      expect(present.has(`Service/${ingress.spec.rules[0].http.paths[0].backend.service.name}`), label).toBe(true);
      expect(present.has(`Service/${controller.metadata.name}`), label).toBe(true);
      expect(present.has(`ServiceAccount/${podSpec(controller).serviceAccountName}`), label).toBe(true);
      const controllerEnv = env(container(controller, 'controller'));
      expect(present.has(`Secret/${controllerEnv.FERRUM_ENCRYPTION_KEY.secretKeyRef.name}`), label).toBe(true);
      if (controllerEnv.REDIS_PASSWORD) {
        const host = /@([^:]+):6379$/.exec(controllerEnv.REDIS_URL)![1];
        expect(present.has(`Service/${host}`), label).toBe(true);
        expect(present.has(`StatefulSet/${host}`), label).toBe(true);
      } else {
        expect(present.has(`Secret/${controllerEnv.REDIS_URL.secretKeyRef.name}`), label).toBe(true);
      }
      const testPod = rendered.objects.find((object) => object.kind === 'Pod')!;
      expect(testPod.spec.containers[0].args[0], label).toContain(`http://${controller.metadata.name}:80/ready`);
    }
  });

  it('has a helm test hook that checks /ready', async () => {
    const rendered = await renderChart(chartDir, inlineSecrets);
    const pod = findObject(rendered, 'Pod', 'ferrum-test-ready');
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test');
    expect(pod.spec.containers[0].args[0]).toContain('http://ferrum-controller:80/ready');
  });

  it('declares the Kubernetes versions and metadata Helm repositories show', () => {
    const chart = readYamlFile(path.join(chartDir, 'Chart.yaml')) as any;
    expect(chart.kubeVersion).toBe('>=1.25.0-0');
    expect(chart.home).toMatch(/^https:\/\//);
    expect(chart.sources.length).toBeGreaterThan(0);
    expect(chart.maintainers[0].name).toBeTruthy();
  });
});

describe('templates: production operations', () => {
  const controllerOf = async (values: Values) =>
    findObject(await renderChart(chartDir, { ...inlineSecrets, ...values }), 'Deployment', 'ferrum-controller');

  it('stops a controller within its grace period: preStop, then the drain, then at most the shutdown timeout', async () => {
    const deployment = await controllerOf({});
    const spec = podSpec(deployment);
    const controller = container(deployment, 'controller');
    const preStopSeconds = Number(controller.lifecycle.preStop.exec.command[1]);
    expect(controller.lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    const variables = env(controller);
    expect(variables).toMatchObject({ FERRUM_HTTP_DRAIN_MS: '5000', FERRUM_SHUTDOWN_TIMEOUT_MS: '20000' });
    const config = loadConfig(variables);
    expect(config.httpDrainMs).toBe(5000);
    expect(shutdownTimeoutMs(config, 'controller')).toBe(20_000);
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(preStopSeconds * 1000 + shutdownTimeoutMs(config, 'controller')).toBeLessThan(
      spec.terminationGracePeriodSeconds * 1000,
    );
    // Without the chart, a controller's own default fits Kubernetes' default 30 s too.
    expect(shutdownTimeoutMs(loadConfig({}), 'controller')).toBeLessThan(30_000);
  });

  it('refuses controller stop settings that do not fit together', async () => {
    const refused: [Values, RegExp][] = [
      [{ shutdownTimeoutSeconds: 5, drainSeconds: 5 }, /shutdownTimeoutSeconds must exceed controller.drainSeconds/],
      [
        { terminationGracePeriodSeconds: 20 },
        /terminationGracePeriodSeconds must exceed controller.shutdownTimeoutSeconds/,
      ],
      [
        { preStopSeconds: 40, terminationGracePeriodSeconds: 30 },
        /terminationGracePeriodSeconds must exceed controller.preStopSeconds/,
      ],
    ];
    for (const [controller, message] of refused)
      await expect(renderChart(chartDir, { ...inlineSecrets, controller })).rejects.toThrow(message);
  });

  it('tunes the probes of controllers and runners from values, keeping their paths', async () => {
    const values = {
      ...inlineSecrets,
      controller: {
        probes: { readiness: { periodSeconds: 2, failureThreshold: 4 }, startup: { failureThreshold: 150 } },
      },
      runner: { probes: { liveness: { timeoutSeconds: 9 } } },
    };
    expect(schemaErrors(chartValues(chartDir, values))).toEqual([]);
    const rendered = await renderChart(chartDir, values);
    const controller = container(findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller');
    expect(controller.readinessProbe).toEqual({
      httpGet: { path: '/ready', port: 'http' },
      periodSeconds: 2,
      failureThreshold: 4,
      timeoutSeconds: 3,
    });
    expect(controller.startupProbe).toEqual({
      httpGet: { path: '/health', port: 'http' },
      periodSeconds: 2,
      failureThreshold: 150,
    });
    const runner = container(findObject(rendered, 'Deployment', 'ferrum-runner'), 'runner');
    expect(runner.livenessProbe).toMatchObject({ httpGet: { path: '/health', port: 'metrics' }, timeoutSeconds: 9 });
    expect(schemaErrors(chartValues(chartDir, { controller: { probes: { liveness: { path: '/x' } } } }))).toContain(
      '/controller/probes/liveness must NOT have additional properties',
    );
  });

  it('bounds the bundled Redis below its memory limit and never evicts Ferrum data', async () => {
    const rendered = await renderChart(chartDir, inlineSecrets);
    const redis = container(findObject(rendered, 'StatefulSet', 'ferrum-redis'), 'redis');
    const option = (name: string) => redis.args[redis.args.indexOf(name) + 1];
    expect(option('--maxmemory-policy')).toBe('noeviction');
    const maxmemoryBytes = Number(/^(\d+)mb$/.exec(option('--maxmemory'))![1]) * 1024 * 1024;
    const limitBytes = Number(/^(\d+)Gi$/.exec(redis.resources.limits.memory)![1]) * 1024 ** 3;
    expect(maxmemoryBytes).toBeLessThanOrEqual(limitBytes * 0.75);
    expect(redis.resources.requests.memory).toBe(redis.resources.limits.memory);
    expect(schemaErrors(chartValues(chartDir, { redis: { bundled: { maxmemory: '1Gi' } } }))).toContain(
      '/redis/bundled/maxmemory must match pattern "^[1-9][0-9]*(kb|mb|gb)$"',
    );
  });

  it('admits traffic to controllers on their HTTP port and to runners on their metrics port only', async () => {
    const open = await renderChart(chartDir, inlineSecrets);
    const controllerPolicy = findObject(open, 'NetworkPolicy', 'ferrum-controller');
    expect(controllerPolicy.spec.podSelector.matchLabels).toEqual(
      findObject(open, 'Deployment', 'ferrum-controller').spec.selector.matchLabels,
    );
    expect(controllerPolicy.spec.ingress).toEqual([{ ports: [{ port: 8080, protocol: 'TCP' }] }]);
    const runnerPolicy = findObject(open, 'NetworkPolicy', 'ferrum-runner');
    expect(runnerPolicy.spec.ingress).toEqual([{ ports: [{ port: 9090, protocol: 'TCP' }] }]);

    const apiFrom = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }];
    const narrowed = await renderChart(chartDir, {
      ...inlineSecrets,
      networkPolicy: { apiFrom, metricsFrom: [{ podSelector: { matchLabels: { app: 'prometheus' } } }] },
      runner: { metrics: { enabled: true } },
    });
    expect(findObject(narrowed, 'NetworkPolicy', 'ferrum-controller').spec.ingress[0].from).toEqual([
      // The release's own pods (the helm test, gateway runners) stay allowed.
      {
        podSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'ferrum', 'app.kubernetes.io/instance': 'ferrum' },
        },
      },
      ...apiFrom,
    ]);
    expect(findObject(narrowed, 'NetworkPolicy', 'ferrum-runner').spec.ingress[0].from).toEqual([
      { podSelector: { matchLabels: { app: 'prometheus' } } },
    ]);
    const silent = await renderChart(chartDir, { ...inlineSecrets, runner: { metrics: { enabled: false } } });
    expect(findObject(silent, 'NetworkPolicy', 'ferrum-runner').spec).toMatchObject({
      policyTypes: ['Ingress'],
      ingress: [],
    });
    const off = await renderChart(chartDir, { ...inlineSecrets, networkPolicy: { enabled: false } });
    expect(off.objects.some((object) => object.kind === 'NetworkPolicy')).toBe(false);
  });

  it('routes the APIs and the dashboard through the Ingress, never /metrics, /ready or /health, with a body limit for uploads', async () => {
    const ingressOf = async (ingress: Values) =>
      findObject(
        await renderChart(chartDir, {
          ...inlineSecrets,
          ingress: { enabled: true, hosts: ['f.example.com'], ...ingress },
        }),
        'Ingress',
        'ferrum-controller',
      );
    const ingress = await ingressOf({ annotations: { 'example.com/team': 'platform' } });
    expect(ingress.metadata.annotations).toEqual({
      'nginx.ingress.kubernetes.io/proxy-body-size': '65m',
      'example.com/team': 'platform',
    });
    const paths: { path: string; pathType: string }[] = ingress.spec.rules[0].http.paths;
    // Kubernetes' matching: Exact whole path; Prefix by whole path elements.
    const routed = (url: string) =>
      paths.some(({ path, pathType }) =>
        pathType === 'Exact' ? url === path : url === path || url.startsWith(`${path}/`),
      );
    for (const url of ['/metrics', '/ready', '/health', '/readyz', '/metrics/x']) expect(routed(url), url).toBe(false);
    for (const url of [
      '/',
      '/ui/app.js',
      '/1/projects',
      '/2/projects/p/tasks',
      '/3/projects/p/queues/q/messages',
      '/v1/apps',
      '/r/app/route',
      '/runner/v1/tasks',
    ])
      expect(routed(url), url).toBe(true);
    for (const entry of ingress.spec.rules[0].http.paths)
      expect(entry.backend).toEqual({ service: { name: 'ferrum-controller', port: { name: 'http' } } });
    const own = await ingressOf({ annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '200m' } });
    expect(own.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/proxy-body-size': '200m' });
  });

  it('keeps runners available through node drains and spreads them over nodes', async () => {
    const rendered = await renderChart(chartDir, inlineSecrets);
    const deployment = findObject(rendered, 'Deployment', 'ferrum-runner');
    const budget = findObject(rendered, 'PodDisruptionBudget', 'ferrum-runner');
    expect(budget.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: deployment.spec.selector.matchLabels } });
    expect(podSpec(deployment).topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: deployment.spec.selector.matchLabels },
      },
    ]);
    const daemons = await renderChart(chartDir, {
      ...inlineSecrets,
      runner: { kind: 'DaemonSet', podDisruptionBudget: { maxUnavailable: '25%' } },
    });
    expect(podSpec(findObject(daemons, 'DaemonSet', 'ferrum-runner')).topologySpreadConstraints).toBeUndefined();
    expect(findObject(daemons, 'PodDisruptionBudget', 'ferrum-runner').spec.maxUnavailable).toBe('25%');
  });

  it('gives every workload its priorityClassName, extra pod labels, and controller and runner extra volumes', async () => {
    const volume = { name: 'ca-bundle', configMap: { name: 'corporate-ca' } };
    const mount = { name: 'ca-bundle', mountPath: '/etc/ssl/corporate', readOnly: true };
    const values = {
      ...inlineSecrets,
      controller: {
        priorityClassName: 'ferrum-api',
        podLabels: { team: 'platform' },
        extraVolumes: [volume],
        extraVolumeMounts: [mount],
      },
      runner: {
        priorityClassName: 'ferrum-batch',
        podLabels: { team: 'batch' },
        extraVolumes: [volume],
        extraVolumeMounts: [mount],
      },
      redis: { bundled: { priorityClassName: 'ferrum-data', podLabels: { backup: 'daily' } } },
    };
    expect(schemaErrors(chartValues(chartDir, values))).toEqual([]);
    const rendered = await renderChart(chartDir, values);
    expectWellFormed(rendered);
    const cases: [KubeObject, string, string, Record<string, string>][] = [
      [findObject(rendered, 'Deployment', 'ferrum-controller'), 'controller', 'ferrum-api', { team: 'platform' }],
      [findObject(rendered, 'Deployment', 'ferrum-runner'), 'runner', 'ferrum-batch', { team: 'batch' }],
      [findObject(rendered, 'StatefulSet', 'ferrum-redis'), 'redis', 'ferrum-data', { backup: 'daily' }],
    ];
    for (const [workload, name, priorityClassName, labels] of cases) {
      expect(podSpec(workload).priorityClassName, name).toBe(priorityClassName);
      expect(workload.spec.template.metadata.labels, name).toMatchObject({
        ...labels,
        'app.kubernetes.io/component': name,
      });
      // Selectors stay the chart's own: an upgrade that changes podLabels keeps the workload.
      expect(Object.keys(workload.spec.selector.matchLabels), name).not.toContain(Object.keys(labels)[0]);
      if (name === 'redis') continue;
      expect(podSpec(workload).volumes, name).toContainEqual(volume);
      expect(container(workload, name).volumeMounts, name).toContainEqual(mount);
    }
    const defaults = await renderChart(chartDir, inlineSecrets);
    for (const [, spec] of podSpecsOf(defaults)) expect(spec.priorityClassName).toBeUndefined();
    expect(
      schemaErrors(chartValues(chartDir, { controller: { podLabels: { 'app.kubernetes.io/component': 'x' } } })),
    ).toContain('/controller/podLabels property name must be valid');
  });

  it('adds custom alert rules, each with its runbook link, beside the built-in ones', async () => {
    const extraRules = [
      {
        alert: 'FerrumQueueBacklog',
        expr: 'max(ferrum_mq_queue_depth_messages) > 100000',
        for: '15m',
        labels: { severity: 'warning' },
        annotations: { summary: 'Queue {{ $labels.queue }} is backed up' },
        runbookUrl: 'https://runbooks.example.com/ferrum/queue-backlog',
      },
      { alert: 'FerrumDown', expr: 'absent(up{job="ferrum"})', runbookUrl: 'https://runbooks.example.com/ferrum/down' },
    ];
    const values = { ...inlineSecrets, metrics: { prometheusRule: { enabled: true, extraRules } } };
    expect(schemaErrors(chartValues(chartDir, values))).toEqual([]);
    const groups = findObject(await renderChart(chartDir, values), 'PrometheusRule', 'ferrum').spec.groups;
    expect(groups.map((group: any) => group.name)).toEqual(['ferrum', 'ferrum-custom']);
    expect(groups[1].rules).toEqual([
      {
        alert: 'FerrumQueueBacklog',
        expr: 'max(ferrum_mq_queue_depth_messages) > 100000',
        for: '15m',
        labels: { severity: 'warning' },
        annotations: {
          summary: 'Queue {{ $labels.queue }} is backed up',
          runbook_url: 'https://runbooks.example.com/ferrum/queue-backlog',
        },
      },
      {
        alert: 'FerrumDown',
        expr: 'absent(up{job="ferrum"})',
        annotations: { runbook_url: 'https://runbooks.example.com/ferrum/down' },
      },
    ]);
    const withoutRunbook = { metrics: { prometheusRule: { extraRules: [{ alert: 'X', expr: 'up == 0' }] } } };
    expect(schemaErrors(chartValues(chartDir, withoutRunbook))).toContain(
      "/metrics/prometheusRule/extraRules/0 must have required property 'runbookUrl'",
    );
    const plain = findObject(
      await renderChart(chartDir, { ...inlineSecrets, metrics: { prometheusRule: { enabled: true } } }),
      'PrometheusRule',
      'ferrum',
    );
    expect(plain.spec.groups.map((group: any) => group.name)).toEqual(['ferrum']);
  });
});
