import type { FastifyRequest } from 'fastify';
import { isHttpError, fail } from '../../src/core/errors.js';
import { parseJsonText } from '../../src/core/json-text.js';
import type { UploadForm } from '../../src/worker/codes/upload-rules.js';
import { UPLOAD_DATA_SCHEMA, type UploadData } from '../../src/worker/codes/upload-schema.js';
import { validationError } from '../schema-errors.js';

/** A JSON body is the `data` part alone: how the Ruby client's `codes_register` registers an image. */
function isJsonRegistration(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * The `data` part checked by its schema through the server's body validator (the one every
 * route body goes through: nulls dropped where they mean "not given", then Ajv), so its
 * refusals are the generic field rows.
 */
function checkedData(request: FastifyRequest, data: unknown): UploadData {
  const validate = request.compileValidationSchema(UPLOAD_DATA_SCHEMA, 'body');
  if (!validate(data)) throw validationError(validate.errors ?? [], 'data');
  return data as UploadData;
}

/** The `data` part of a form: JSON text, required. */
function dataOf(text: string | undefined): unknown {
  const trimmed = text?.trim();
  if (!trimmed) throw fail('field_required', 'data');
  return parseJsonText(trimmed, 'data');
}

/** The multipart form's `data` text and `file` zip. */
async function readParts(request: FastifyRequest, maxCodeBytes: number): Promise<{ data?: string; file?: Buffer }> {
  const form: { data?: string; file?: Buffer } = {};
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
  return form;
}

/** Reads a code upload: the multipart form's `data` field and optional `file`, or a JSON body as `data`. */
export async function readUploadForm(request: FastifyRequest, maxCodeBytes: number): Promise<UploadForm> {
  if (isJsonRegistration(request)) {
    if (request.emptyJsonBody) throw fail('field_required', 'data');
    return { data: checkedData(request, request.body) };
  }
  if (!request.isMultipart()) throw fail('code_upload_content_type');
  const { data, file } = await readParts(request, maxCodeBytes);
  // An empty file part is no file.
  return { data: checkedData(request, dataOf(data)), file: file?.length ? file : undefined };
}
