import type { ProjectLifecycle } from '../../auth/project-lifecycle.js';
import type { Principal } from '../../auth/types.js';
import { fail } from '../../core/errors.js';
import type { App, ConfigMap } from '../types.js';
import type { FunctionAccess } from './access.js';
import type { AppStore } from './app-store.js';
import { checkAppName, checkConfig } from './rules.js';

/** The `app` object of a request body, as the schema admits it. */
export interface AppInput {
  name?: string;
  project_id?: string;
  config?: ConfigMap;
}

/** What the management API does with apps, for a principal: each rule and check, then the store. */
export class AppManagement {
  constructor(
    private readonly apps: AppStore,
    private readonly access: FunctionAccess,
    private readonly lifecycle: Pick<ProjectLifecycle, 'appCreated'>,
  ) {}

  /** A new app in the project asked for (`projectId` when the body names none), or the user's only one. */
  async create(principal: Principal, input: AppInput, projectId: string | undefined): Promise<App> {
    const { name = '', config = {} } = input;
    checkAppName(name);
    checkConfig('app config', config);
    const project = await this.access.projectForNewApp(principal, input.project_id ?? projectId);
    const values = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== ''));
    if (await this.apps.get(name)) throw fail('fn_app_exists', name);
    const created = await this.access.withRoom(project, { newApp: name, newRoute: null }, async () => {
      const app = await this.apps.create(name, project, values);
      if (!app) throw fail('fn_app_exists', name);
      return app;
    });
    await this.lifecycle.appCreated(project, name);
    return created;
  }

  /** The apps the principal may see, by name, after `cursor`. */
  async list(principal: Principal, cursor: string | undefined, perPage: number): Promise<App[]> {
    return this.apps.list(await this.access.scopeOf(principal), cursor, perPage);
  }

  /** 404 for an app the principal may not see, as for a missing one. */
  async get(principal: Principal, name: string): Promise<App> {
    return this.access.mustSeeApp(principal, name);
  }

  /** Merges config changes (an empty value removes a key); the name may be repeated, not changed. */
  async update(principal: Principal, name: string, input: AppInput): Promise<App> {
    const found = await this.access.mustSeeApp(principal, name);
    if (input.name !== undefined && input.name !== found.name) throw fail('fn_app_name_immutable');
    const config = input.config ?? {};
    checkConfig('app config', config);
    const updated = await this.apps.updateConfig(found.name, config);
    if (!updated) throw fail('fn_app_not_found');
    return updated;
  }

  /** Deletes an app without routes (409 otherwise), its call records with it. */
  async delete(principal: Principal, name: string): Promise<void> {
    const found = await this.access.mustSeeApp(principal, name);
    const outcome = await this.apps.delete(found);
    if (outcome === 'missing') throw fail('fn_app_not_found');
    if (outcome === 'has-routes') throw fail('fn_app_has_routes');
  }
}
