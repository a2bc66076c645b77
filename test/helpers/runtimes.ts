import { FAST_WORKER_ENV } from './worker.js';

/** Stacks of the python, ruby and sh runtimes made of locally built images (scripts/build-test-images.sh). */
export const RUNTIME_STACKS_ENV = {
  ...FAST_WORKER_ENV,
  FERRUM_WORKER_STACKS:
    'python-3.12=ferrum-test/python,ruby-3.3=ferrum-test/ruby,busybox=ferrum-test/busybox,node-20=ferrum-test/node-base',
  FERRUM_WORKER_DEFAULT_STACK: 'node-20',
};

/** The multipart body iron_worker_python builds by hand: its boundary, `data` first, then `file`. */
export function pythonClientForm(data: Record<string, unknown>, zip: Buffer): { raw: Buffer; type: string } {
  const boundary = '----------ThIs_Is_tHe_bouNdaRY_$';
  const head = [
    `--${boundary}`,
    'Content-Disposition: form-data; name="data"',
    '',
    JSON.stringify(data).replace(/":/g, '": ').replace(/,"/g, ', "'),
    `--${boundary}`,
    `Content-Disposition: form-data; name="file"; filename="${String(data.name)}.zip"`,
    'Content-Type: application/zip',
    '',
    '',
  ].join('\r\n');
  const raw = Buffer.concat([Buffer.from(head), zip, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { raw, type: `multipart/form-data; boundary=${boundary}` };
}
