import type { RedisClient } from '../../core/redis.js';
import { fail } from '../../core/errors.js';
import type { ProjectStorage } from '../../auth/stored-bytes.js';
import { STORED_BYTES_COUNTED, byteQuotaReached } from '../../auth/quotas.js';
import { newObjectId } from '../../core/ids.js';
import { scripts } from './scripts.js';
import type { BlobStore } from './archives/blobs.js';
import type { WorkerKeys } from '../keys.js';
import type { Code, CodeRevision, CodeSettings } from '../types.js';
import { md5 } from './archives/zip.js';

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
    private readonly storage: ProjectStorage,
    /** How many of a package's newest revisions keep their zip. */
    private readonly revisionsKept: number,
  ) {}

  /**
   * Creates the package or adds a revision; returns the package as it now is. The zip counts
   * toward the project's stored bytes (413 past `storedBytesQuota`, nothing stored); the zip of
   * the revision that falls out of the newest `revisionsKept` is deleted.
   */
  async upload(projectId: string, upload: Upload, storedBytesQuota: number): Promise<Code> {
    const revisionId = newObjectId();
    let blob: string | undefined;
    if (upload.zip) {
      if (!(await this.storage.reserve('code', projectId, upload.zip.length, storedBytesQuota)))
        throw byteQuotaReached('stored_bytes', storedBytesQuota, STORED_BYTES_COUNTED);
      blob = this.keys.blob(projectId, revisionId);
      try {
        await this.blobs.put(blob, upload.zip);
      } catch (error) {
        await this.storage.release('code', projectId, upload.zip.length);
        throw error;
      }
    }
    const code = await this.saveRevision(projectId, upload, revisionId, blob);
    await this.pruneArchive(projectId, code.id, code.rev - this.revisionsKept);
    return code;
  }

  private async saveRevision(projectId: string, upload: Upload, revisionId: string, blob?: string): Promise<Code> {
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
      const saved = await scripts.saveRevision.run<number>(
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

  /** Deletes the zip of revision `rev` (1-based), if it still has one. */
  private async pruneArchive(projectId: string, codeId: string, rev: number): Promise<void> {
    if (rev < 1) return;
    const key = this.keys.revisions(projectId, codeId);
    const json = await this.redis.lindex(key, rev - 1);
    if (!json) return;
    const { blob, ...revision } = JSON.parse(json) as CodeRevision;
    if (blob === undefined) return;
    const pruned = JSON.stringify({ ...revision, archive_pruned: true });
    const counter = this.storage.counter('code', projectId);
    const args = [rev - 1, json, pruned, revision.code_size ?? 0];
    if ((await scripts.pruneRevision.run<number>(this.redis, [key, counter], args)) === 1)
      await this.blobs.delete([blob]);
  }

  async find(projectId: string, codeId: string): Promise<Code | null> {
    const json = await this.redis.get(this.keys.code(projectId, codeId));
    return json ? (JSON.parse(json) as Code) : null;
  }

  async get(projectId: string, codeId: string): Promise<Code> {
    const code = await this.find(projectId, codeId);
    if (!code) throw fail('code_not_found');
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
    if (!json) throw fail('code_revision_not_found', number, code.name);
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

  /** Every kept zip's blob key and their total size, read a bounded batch at a time. */
  private async archives(projectId: string, codeId: string): Promise<{ blobs: string[]; bytes: number }> {
    const key = this.keys.revisions(projectId, codeId);
    const blobs: string[] = [];
    let bytes = 0;
    for (let start = 0; ; start += REVISION_BATCH) {
      const jsons = await this.redis.lrange(key, start, start + REVISION_BATCH - 1);
      for (const json of jsons) {
        const revision = JSON.parse(json) as CodeRevision;
        if (revision.blob === undefined) continue;
        blobs.push(revision.blob);
        bytes += revision.code_size ?? 0;
      }
      if (jsons.length < REVISION_BATCH) return { blobs, bytes };
    }
  }

  async zip(revision: CodeRevision): Promise<Buffer | null> {
    return revision.blob ? this.blobs.get(revision.blob) : null;
  }

  async delete(projectId: string, codeId: string): Promise<void> {
    const code = await this.get(projectId, codeId);
    const { blobs, bytes } = await this.archives(projectId, codeId);
    const deleted = await scripts.deleteCode.run<number>(
      this.redis,
      [
        this.keys.codeNames(projectId),
        this.keys.codeIndex(projectId),
        this.keys.code(projectId, codeId),
        this.keys.revisions(projectId, codeId),
      ],
      [codeId, code.name],
    );
    if (deleted === 0) throw fail('code_not_found');
    for (let i = 0; i < blobs.length; i += REVISION_BATCH) await this.blobs.delete(blobs.slice(i, i + REVISION_BATCH));
    await this.storage.release('code', projectId, bytes);
  }
}
