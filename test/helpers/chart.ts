import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse as initGoTemplate } from '@evertdespiegeleer/go-template';
import { Ajv, type ValidateFunction } from 'ajv';
import YAML from 'yaml';

/**
 * Renders a Helm chart's templates the way `helm template` does, with Go's own text/template
 * engine (compiled to WebAssembly): values.yaml coalesced with overrides, the built-in objects
 * .Values, .Release and .Chart, named templates from every `_*.tpl` file shared by all files.
 * Sprig and Helm's extra functions are not available, and a missing map key is an error, with
 * one exception: Helm's checksum idiom `{{ include (print $.Template.BasePath "/<file>") . |
 * sha256sum }}` is replaced, before rendering, by the SHA-256 of that file rendered the same way,
 * which is what Helm puts there.
 */

export type Values = Record<string, unknown>;

type GoRender = (template: string, json: string) => string;

/**
 * Executes a template with Go's text/template. The package's parse() reports an error raised
 * inside a named template with an empty message, so this calls the engine's Render (which
 * parse() itself wraps) and keeps the whole error text.
 */
async function executeGoTemplate(template: string, data: unknown): Promise<string> {
  await initGoTemplate('', null);
  const render = (globalThis as unknown as { Render: GoRender }).Render;
  const output = render(template, JSON.stringify(data));
  const failure = /^(Template (exec|parse) error|JSON parse error):/.exec(output);
  if (failure) throw new Error(output);
  return output;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  stringData?: Record<string, string>;
  [field: string]: unknown;
}

export interface RenderedChart {
  objects: KubeObject[];
  notes: string;
  /** The file under templates/ each object came from. */
  templateOf: Map<KubeObject, string>;
}

export interface Release {
  name: string;
  namespace: string;
}

function isPlainObject(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Helm's coalescing: maps merge key by key, anything else replaces, null removes the key. */
export function mergeValues(base: Values, override: Values): Values {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete merged[key];
    else if (isPlainObject(value) && isPlainObject(merged[key]))
      merged[key] = mergeValues(merged[key] as Values, value);
    else merged[key] = value;
  }
  return merged;
}

export function readYamlFile(file: string): Values {
  const parsed: unknown = YAML.parse(fs.readFileSync(file, 'utf8'));
  if (!isPlainObject(parsed)) throw new Error(`${file} is not a YAML mapping`);
  return parsed;
}

export function chartValues(chartDir: string, ...overrides: Values[]): Values {
  return overrides.reduce(mergeValues, readYamlFile(path.join(chartDir, 'values.yaml')));
}

const valuesValidators = new Map<string, ValidateFunction>();

/** What the chart's values.schema.json finds wrong in values (merged ones: see chartValues). */
export function valuesSchemaErrors(chartDir: string, values: Values): string[] {
  let validate = valuesValidators.get(chartDir);
  if (!validate) {
    const schema: unknown = JSON.parse(fs.readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8'));
    validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema as object);
    valuesValidators.set(chartDir, validate);
  }
  return validate(values) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

function chartObject(chartDir: string): Values {
  const chart = readYamlFile(path.join(chartDir, 'Chart.yaml'));
  // Helm exposes Chart.yaml's fields capitalised: .Chart.Name, .Chart.Version, .Chart.AppVersion.
  return Object.fromEntries(Object.entries(chart).map(([key, value]) => [key[0]!.toUpperCase() + key.slice(1), value]));
}

const CHECKSUM_IDIOM = /\{\{ include \(print \$\.Template\.BasePath "([^"]+)"\) \. \| sha256sum \}\}/g;

export async function renderChart(
  chartDir: string,
  overrides: Values = {},
  release: Release = { name: 'ferrum', namespace: 'ferrum' },
): Promise<RenderedChart> {
  const templatesDir = path.join(chartDir, 'templates');
  // Every file under templates/, subfolders (tests/) included, as Helm reads them.
  const files = (fs.readdirSync(templatesDir, { recursive: true }) as string[])
    .filter((file) => fs.statSync(path.join(templatesDir, file)).isFile())
    .sort();
  const helpers = files
    .filter((file) => path.basename(file).startsWith('_'))
    .map((file) => fs.readFileSync(path.join(templatesDir, file), 'utf8'));
  const context = {
    Values: chartValues(chartDir, overrides),
    Release: {
      Name: release.name,
      Namespace: release.namespace,
      Service: 'Helm',
      IsInstall: true,
      IsUpgrade: false,
      Revision: 1,
    },
    Chart: chartObject(chartDir),
  };
  const render = async (file: string): Promise<string> => {
    const source = fs.readFileSync(path.join(templatesDir, file), 'utf8');
    const checksums = new Map<string, string>();
    for (const [, included] of source.matchAll(CHECKSUM_IDIOM)) {
      const text = await render(included!.replace(/^\//, ''));
      checksums.set(included!, createHash('sha256').update(text).digest('hex'));
    }
    const expanded = source.replace(CHECKSUM_IDIOM, (_idiom, included: string) => checksums.get(included)!);
    return executeGoTemplate(helpers.join('\n') + expanded, context);
  };

  const objects: KubeObject[] = [];
  const templateOf = new Map<KubeObject, string>();
  for (const file of files.filter((name) => name.endsWith('.yaml'))) {
    const text = await render(file);
    for (const document of YAML.parseAllDocuments(text)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}\n${text}`);
      const object = document.toJS() as KubeObject | null;
      if (object === null) continue;
      objects.push(object);
      templateOf.set(object, file);
    }
  }
  const notes = files.includes('NOTES.txt') ? await render('NOTES.txt') : '';
  return { objects, notes, templateOf };
}

/** The one object of a kind and name; throws when absent so tests fail with a clear message. */
export function findObject(rendered: RenderedChart, kind: string, name: string): KubeObject {
  const found = rendered.objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    const present = rendered.objects.map((object) => `${object.kind}/${object.metadata.name}`).join(', ');
    throw new Error(`no ${kind}/${name} rendered; present: ${present}`);
  }
  return found;
}
