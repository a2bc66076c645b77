import { describe, expect, it } from 'vitest';
import { admitProject } from '../../src/auth/project-service.js';
import { shareIdentifiers } from '../../src/auth/share-identifiers.js';
import type { Principal, User } from '../../src/auth/types.js';
import { HttpError } from '../../src/core/errors.js';

const tenant: Principal = { tokenId: 't', userId: 'u1', admin: false, type: 'standard' };
const admin: Principal = { ...tenant, admin: true };
const someone = { id: 'u2' } as User;

function facts(over: Partial<Parameters<typeof admitProject>[2]> = {}) {
  return {
    owner: async () => someone,
    ownedCount: async () => 0,
    isTombstoned: async () => false,
    cap: 3,
    ...over,
  };
}

async function refusal(run: Promise<unknown>): Promise<[number, string]> {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw new Error('expected a refusal');
  return [error.statusCode, error.message];
}

describe('project admission (admitProject)', () => {
  it('lets a tenant create its own project and an admin choose the owner', async () => {
    expect(await admitProject(tenant, { name: 'p' }, facts())).toBeNull();
    expect(await admitProject(admin, { name: 'p', userId: 'u2', id: 'abc' }, facts())).toBe(someone);
  });

  it('refuses a tenant choosing an owner or an id', async () => {
    const expected = [403, 'Only admin tokens may choose a project owner or id'];
    expect(await refusal(admitProject(tenant, { name: 'p', userId: 'u2' }, facts()))).toEqual(expected);
    expect(await refusal(admitProject(tenant, { name: 'p', id: 'abc' }, facts()))).toEqual(expected);
  });

  it('refuses a malformed id, an unknown owner and a reused id', async () => {
    expect(await refusal(admitProject(admin, { name: 'p', id: 'a/b' }, facts()))).toEqual([
      400,
      'id must be 1-64 of [A-Za-z0-9_-]',
    ]);
    expect(await refusal(admitProject(admin, { name: 'p', userId: 'x' }, facts({ owner: async () => null })))).toEqual([
      404,
      'User not found',
    ]);
    expect(
      await refusal(admitProject(admin, { name: 'p', id: 'old' }, facts({ isTombstoned: async () => true }))),
    ).toEqual([409, 'project id old belonged to a deleted project; ids are never reused']);
  });

  it('holds tenants, not admins, to the per-user cap', async () => {
    const full = facts({ ownedCount: async () => 3 });
    expect(await refusal(admitProject(tenant, { name: 'p' }, full))).toEqual([
      403,
      'you own 3 projects, the most a user may (FERRUM_MAX_PROJECTS_PER_USER): delete one first',
    ]);
    expect(await admitProject(admin, { name: 'p' }, full)).toBeNull();
  });
});

describe('share identifiers', () => {
  it('reads every accepted form', () => {
    expect(shareIdentifiers(['a', { user_id: 'b' }])).toEqual(['a', 'b']);
    expect(shareIdentifiers({ user_ids: ['a'] })).toEqual(['a']);
    expect(shareIdentifiers({ users: ['a@x.io'] })).toEqual(['a@x.io']);
    expect(shareIdentifiers({ user_id: 'a' })).toEqual(['a']);
  });

  it('refuses a missing, empty or malformed list', () => {
    expect(() => shareIdentifiers({})).toThrow('user_id list is required');
    expect(() => shareIdentifiers([])).toThrow('user_id list is required');
    expect(() => shareIdentifiers({ user_ids: 'a' })).toThrow('user_ids must be a list');
    expect(() => shareIdentifiers([''])).toThrow('each user_id must be a non-empty string');
  });
});
