import type { FastifyRequest } from 'fastify';
import { isHttpError, fail } from '../../src/core/errors.js';
import type { UploadForm } from '../../src/worker/codes/upload-rules.js';

/** A JSON body is the `data` part alone: how the Ruby client's `codes_register` registers an image. */
function isJsonRegistration(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/** Reads the multipart form of a code upload: the `data` field and the optional `file`. */
export async function readUploadForm(request: FastifyRequest, maxCodeBytes: number): Promise<UploadForm> {
  if (isJsonRegistration(request)) return { data: request.emptyJsonBody ? '' : JSON.stringify(request.body) };
  if (!request.isMultipart()) throw fail('code_upload_content_type');
  const form: UploadForm = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw fail('code_upload_file_field', part.fieldname);
        form.file = await part.toBuffer();
      } else if (part.fieldname === 'data') {
        form.data = String(part.value);
      }
    }
  } catch (error) {
    if (isHttpError(error)) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw fail('code_upload_too_large', maxCodeBytes);
    throw fail('code_upload_bad_multipart', (error as Error).message);
  }
  // An empty file part is no file.
  if (form.file && form.file.length === 0) form.file = undefined;
  return form;
}
