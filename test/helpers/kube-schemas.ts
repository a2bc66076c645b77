import type { KubeObject } from './chart.js';

/**
 * Checks Kubernetes objects against the schemas of their apiVersion and kind: Kubernetes' own
 * OpenAPI schemas (the validators kubernetes-models generates from them) and the Prometheus
 * Operator's CRDs (@kubernetes-models/prometheus-operator).
 *
 * The generated validators accept fields their schema does not name, but `helm install`
 * (client-side validation) refuses a manifest with an unknown field, which is what a template
 * indented one level wrong produces. So each object is validated through a Proxy that records
 * which fields the validator looked at: a validator reads every property its schema names, so a
 * field of a checked object that it never read is unknown. Objects the validator never looks
 * into (free-form ones) and maps it walks over (labels, resource limits) are not judged.
 */

interface ValidatingModel {
  apiVersion: string;
  kind: string;
  prototype: { validate(this: unknown): void };
}

/** Where the model of an apiVersion's kinds lives: the Prometheus Operator's CRDs, else Kubernetes. */
function modelsPackage(apiVersion: string): string {
  return apiVersion.startsWith('monitoring.coreos.com/')
    ? '@kubernetes-models/prometheus-operator'
    : 'kubernetes-models';
}

async function modelOf(apiVersion: string, kind: string): Promise<ValidatingModel | undefined> {
  if (!/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  let module: Record<string, unknown>;
  try {
    module = (await import(`${modelsPackage(apiVersion)}/${apiVersion}/${kind}`)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const model = module[kind] as ValidatingModel | undefined;
  // The packages also export the types inside objects (e.g. Endpoint): only a kind's model counts.
  return model?.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

interface FieldReads {
  path: string;
  read: Set<string>;
  walked: boolean;
}

/** Wraps a value in Proxies (nested ones made as they are reached) that record what is read. */
function recordReads(root: object): { watched: object; unknownFields(): string[] } {
  const reads = new Map<object, FieldReads>();
  const proxies = new WeakMap<object, object>();
  const watch = (target: object, path: string): object => {
    const existing = proxies.get(target);
    if (existing) return existing;
    const record: FieldReads = { path, read: new Set(), walked: false };
    reads.set(target, record);
    const proxy = new Proxy(target, {
      get(object, key, receiver) {
        const value: unknown = Reflect.get(object, key, receiver);
        if (typeof key !== 'string') return value;
        record.read.add(key);
        return typeof value === 'object' && value !== null ? watch(value, `${path}/${key}`) : value;
      },
      ownKeys(object) {
        record.walked = true;
        return Reflect.ownKeys(object);
      },
    });
    proxies.set(target, proxy);
    return proxy;
  };
  const watched = watch(root, '');
  const unknownFields = () =>
    [...reads].flatMap(([target, { path, read, walked }]) =>
      Array.isArray(target) || walked || read.size === 0
        ? []
        : Object.keys(target)
            .filter((key) => !read.has(key))
            .map((key) => `${path}/${key} is not a field of its object`),
    );
  return { watched, unknownFields };
}

interface SchemaViolation {
  instancePath: string;
  message?: string;
}

/** Runs a model's validator; its errors come as an ajv ValidationError, messages in English. */
function validatorErrors(model: ValidatingModel, object: object): string[] {
  try {
    model.prototype.validate.call(object);
    return [];
  } catch (error) {
    const violations = (error as { errors?: SchemaViolation[] }).errors;
    if (!violations) throw error;
    return violations.map(({ instancePath, message }) => `${instancePath || '/'} ${message ?? 'is invalid'}`);
  }
}

/**
 * What is wrong with an object per its kind's schema. An object of a kind without a schema is
 * wrong, and so is one of Kubernetes' own kinds at a beta or alpha version: kubernetes-models
 * keeps the schemas of versions Kubernetes has stopped serving (extensions/v1beta1,
 * policy/v1beta1...), and each beta is removed some releases after its kind goes stable.
 */
export async function kubeSchemaErrors(object: KubeObject): Promise<string[]> {
  const model = await modelOf(object.apiVersion, object.kind);
  if (!model) return [`no schema for ${object.apiVersion} ${object.kind}`];
  const stable = /^([a-z0-9.-]+\/)?v[0-9]+$/.test(object.apiVersion);
  if (modelsPackage(object.apiVersion) === 'kubernetes-models' && !stable)
    return [`${object.apiVersion} ${object.kind}: not a stable Kubernetes API version`];
  const { watched, unknownFields } = recordReads(object);
  return [...validatorErrors(model, watched), ...unknownFields()];
}
