import fs from 'node:fs';
import path from 'node:path';
import { readYamlFile, type Values } from './chart.js';

/** The Ferrum chart and the values its tests render it with. */
export const chartDir = path.resolve('charts/ferrum');

const examplesDir = path.join(chartDir, 'examples');

/** The files of examples/, each a documented way to install the chart. */
export const exampleFiles = fs
  .readdirSync(examplesDir)
  .filter((file) => file.endsWith('.yaml'))
  .sort();

export const example = (file: string): Values => readYamlFile(path.join(examplesDir, file));

/** The secrets the chart requires when it makes its own Secret and runs the bundled Redis. */
export const inlineSecrets = {
  secrets: { bootstrapToken: 'a'.repeat(40), encryptionKey: 'b'.repeat(64), redisPassword: 'c'.repeat(32) },
};

/** Values that turn on every object the chart can render besides the default ones. */
export const everyOptionalObject: Values = {
  ...inlineSecrets,
  controller: { autoscaling: { enabled: true } },
  ingress: { enabled: true, hosts: ['ferrum.example.com'] },
  metrics: {
    serviceMonitor: { enabled: true },
    prometheusRule: { enabled: true },
    grafanaDashboard: { enabled: true },
  },
};
