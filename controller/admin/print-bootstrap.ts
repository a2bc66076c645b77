import type { BootstrapResult } from '../../src/auth/bootstrap.js';

/** What a first start (or `ferrum admin token` on an empty store) created, shown once. */
export function printBootstrap(bootstrap: BootstrapResult, ironJsonPath: string | null): void {
  const { email, password, token, projectId } = bootstrap;
  process.stdout.write(
    [
      '',
      'Ferrum bootstrap: created the first admin user, token and project.',
      `  email:      ${email}`,
      `  password:   ${password}`,
      `  token:      ${token}`,
      `  project_id: ${projectId}`,
      `  iron.json:  ${ironJsonPath}`,
      '',
    ].join('\n') + '\n',
  );
}
