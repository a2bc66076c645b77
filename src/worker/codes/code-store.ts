import type { RedisClient } from '../../core/redis.js';
import { notFound } from '../../core/errors.js';
import { newObjectId } from '../../core/ids.js';
import { loadLua } from '../../core/lua.js';
import type { BlobStore } from './blobs.js';
import type { WorkerKeys } from '../keys.js';
import type { Code, CodeRevision, CodeSettings } from '../types.js';
import { md5 } from './zip.js';

const saveRevision = loadLua(import.meta.url, 'save-code-revision');
const deleteCodeScript = loadLua(import.meta.url, 'delete-code');
/** Revisions read per step: the list grows by one per upload, so it is never read whole. */
const REVISION_BATCH = 100;

export interface Upload {
  name: string;
  settings: CodeSettings;
  /** The zip of an old-style package. */
  zip?: Buffer;
}

export interface Page {
  page: number;
  perPage: number;
}

/** Code packages and their revisions; zips live in the blob store. */
export class CodeStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: WorkerKeys,
    private readonly blobs: BlobStore,
  ) {}

  /** Creates the package or adds a revision; returns the package as it now is. */
  async upload(projectId: string, upload: Upload): Promise<Code> {
    const revisionId = newObjectId();
    let blob: string | undefined;
    if (upload.zip) {
      blob = this.keys.blob(projectId, revisionId);
      await this.blobs.put(blob, upload.zip);
    }
    for (;;) {
      const existingId = await this.redis.hget(this.keys.codeNames(projectId), upload.name);
      const existing = existingId ? await this.find(projectId, existingId) : null;
      const now = Date.now();
      const codeId = existing?.id ?? newObjectId(now);
      const rev = (existing?.rev ?? 0) + 1;
      const revision: CodeRevision = {
        ...upload.settings,
        id: revisionId,
        project_id: projectId,
        code_id: codeId,
        name: upload.name,
        rev,
        created_at: now,
        updated_at: now,
        ...(upload.zip ? { checksum: md5(upload.zip), code_size: upload.zip.length, blob } : {}),
      };
      const code: Code = {
        ...upload.settings,
        id: codeId,
        project_id: projectId,
        name: upload.name,
        created_at: existing?.created_at ?? now,
        rev,
        latest_history_id: revisionId,
        latest_change: now,
        ...(revision.checksum ? { latest_checksum: revision.checksum } : {}),
      };
      const saved = await saveRevision.run<number>(
        this.redis,
        [
          this.keys.codeNames(projectId),
          this.keys.codeIndex(projectId),
          this.keys.code(projectId, codeId),
          this.keys.revisions(projectId, codeId),
        ],
        [
          upload.name,
          existingId ?? '',
          String(rev - 1),
          codeId,
          JSON.stringify(code),
          JSON.stringify(revision),
          String(now),
        ],
      );
      if (saved === 1) return code;
    }
  }

  async find(projectId: string, codeId: string): Promise<Code | null> {
    const json = await this.redis.get(this.keys.code(projectId, codeId));
    return json ? (JSON.parse(json) as Code) : null;
  }

  async get(projectId: string, codeId: string): Promise<Code> {
    const code = await this.find(projectId, codeId);
    if (!code) throw notFound('Code package not found');
    return code;
  }

  async findByName(projectId: string, name: string): Promise<Code | null> {
    const id = await this.redis.hget(this.keys.codeNames(projectId), name);
    return id ? this.find(projectId, id) : null;
  }

  async list(projectId: string, { page, perPage }: Page): Promise<Code[]> {
    const start = page * perPage;
    const ids = await this.redis.zrange(this.keys.codeIndex(projectId), start, start + perPage - 1);
    if (ids.length === 0) return [];
    const jsons = await this.redis.mget(ids.map((id) => this.keys.code(projectId, id)));
    return jsons.filter((json): json is string => json !== null).map((json) => JSON.parse(json) as Code);
  }

  /** Revisions, newest first. */
  async revisions(projectId: string, codeId: string, { page, perPage }: Page): Promise<CodeRevision[]> {
    await this.get(projectId, codeId);
    const start = -(page * perPage) - 1;
    const jsons = await this.redis.lrange(this.keys.revisions(projectId, codeId), start - perPage + 1, start);
    return jsons.reverse().map((json) => JSON.parse(json) as CodeRevision);
  }

  /** A revision by its number (1-based) or, without one, the latest. */
  async revision(projectId: string, codeId: string, rev?: number): Promise<CodeRevision> {
    const code = await this.get(projectId, codeId);
    const number = rev ?? code.rev;
    const json = number >= 1 ? await this.redis.lindex(this.keys.revisions(projectId, codeId), number - 1) : null;
    if (!json) throw notFound(`Revision ${number} of code package ${code.name} not found`);
    return JSON.parse(json) as CodeRevision;
  }

  /** The revision a task runs, by its history id; null when the package was deleted since. */
  async revisionById(projectId: string, codeId: string, revisionId: string): Promise<CodeRevision | null> {
    const key = this.keys.revisions(projectId, codeId);
    // Newest first, a bounded read at a time: a task usually runs one of the latest revisions.
    for (let end = -1; ; end -= REVISION_BATCH) {
      const jsons = await this.redis.lrange(key, end - REVISION_BATCH + 1, end);
      for (let i = jsons.length - 1; i >= 0; i--) {
        const revision = JSON.parse(jsons[i]!) as CodeRevision;
        if (revision.id === revisionId) return revision;
      }
      if (jsons.length < REVISION_BATCH) return null;
    }
  }

  /** Every revision's blob key, read a bounded batch at a time. */
  private async blobKeys(projectId: string, codeId: string): Promise<string[]> {
    const key = this.keys.revisions(projectId, codeId);
    const blobs: string[] = [];
    for (let start = 0; ; start += REVISION_BATCH) {
      const jsons = await this.redis.lrange(key, start, start + REVISION_BATCH - 1);
      for (const json of jsons) {
        const blob = (JSON.parse(json) as CodeRevision).blob;
        if (blob !== undefined) blobs.push(blob);
      }
      if (jsons.length < REVISION_BATCH) return blobs;
    }
  }

  async zip(revision: CodeRevision): Promise<Buffer | null> {
    return revision.blob ? this.blobs.get(revision.blob) : null;
  }

  async delete(projectId: string, codeId: string): Promise<void> {
    const code = await this.get(projectId, codeId);
    const blobs = await this.blobKeys(projectId, codeId);
    const deleted = await deleteCodeScript.run<number>(
      this.redis,
      [
        this.keys.codeNames(projectId),
        this.keys.codeIndex(projectId),
        this.keys.code(projectId, codeId),
        this.keys.revisions(projectId, codeId),
      ],
      [codeId, code.name],
    );
    if (deleted === 0) throw notFound('Code package not found');
    for (let i = 0; i < blobs.length; i += REVISION_BATCH) await this.blobs.delete(blobs.slice(i, i + REVISION_BATCH));
  }
}
