import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { builtFerrum } from './built-checkout.js';
import { startTestServer, type TestServer } from './server.js';
import { useTestServer } from './test-file.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
  /** Called with each stdout chunk as it arrives. */
  onStdout?: (chunk: string) => void;
  /** Called with each stderr chunk as it arrives. */
  onStderr?: (chunk: string) => void;
}

/**
 * The `ferrum` executable of this checkout, compiled once for the run (built-checkout.ts), run
 * as a child process with a home of its own: every command, the server ones included.
 */
export class Cli {
  private constructor(
    /** The built `ferrum` executable (run with node). */
    readonly entry: string,
    readonly home: string,
  ) {}

  static async build(): Promise<Cli> {
    return new Cli(builtFerrum(), fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-cli-home-')));
  }

  /** Runs `ferrum <args>` with a private HOME and no IRON_* variables but those given. */
  run(args: string[], options: CliRun = {}): Promise<CliResult> {
    return this.start(args, options).result;
  }

  /** As `run`, with the child process at hand (to signal a long-running command such as `ferrum runner`). */
  start(args: string[], options: CliRun = {}): { child: ChildProcess; result: Promise<CliResult> } {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('IRON_') && name !== 'FERRUM_DATA_DIR'),
    );
    const child = spawn(process.execPath, [this.entry, ...args], {
      cwd: options.cwd ?? this.home,
      env: { ...inherited, HOME: this.home, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(chunk);
    });
    child.stdin.end(options.input ?? '');
    const result = new Promise<CliResult>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    return { child, result };
  }

  cleanUp(): void {
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

/** A directory holding an iron.json with these contents. */
export function dirWithIronJson(contents: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-cli-cwd-'));
  fs.writeFileSync(path.join(dir, 'iron.json'), JSON.stringify(contents));
  return dir;
}

/** The iron.json of a test server as `ferrum start` would write it. */
export function ironJsonOf(server: { url: string; token: string; projectId: string }): Record<string, unknown> {
  const url = new URL(server.url);
  return {
    token: server.token,
    project_id: server.projectId,
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    scheme: 'http',
  };
}

/** A test file's server, built CLI and a working directory whose iron.json points at the server. */
export interface CliSession {
  server: TestServer;
  cli: Cli;
  /** The directory holding the server's iron.json, where `ferrum` runs by default. */
  cwd: string;
  /** Runs `ferrum <args>` in `cwd`, as a user with that iron.json would. */
  ferrum(args: string[], options?: CliRun): Promise<CliResult>;
}

/**
 * The shared set-up of the CLI suites: starts a server (startTestServer unless given) and finds
 * the built CLI before the file's tests, and cleans both up after them. Read the fields inside tests.
 */
export function useCliSession(startServer: () => Promise<TestServer> = () => startTestServer()): CliSession {
  const session = {
    ferrum: (args: string[], options: CliRun = {}) => session.cli.run(args, { cwd: session.cwd, ...options }),
  } as CliSession;
  // The CLI is found (or built) while the server starts.
  let building: Promise<Cli> | undefined;
  beforeAll(() => {
    building = Cli.build();
    building.catch(() => undefined); // awaited (and its failure reported) by the hook after the server's
  });
  session.server = useTestServer({}, startServer);
  beforeAll(async () => {
    session.cli = await building!;
    session.cwd = dirWithIronJson(ironJsonOf(session.server));
  });
  afterAll(() => {
    session.cli?.cleanUp();
    if (session.cwd) fs.rmSync(session.cwd, { recursive: true, force: true });
  });
  return session;
}

/**
 * A session's `ferrum(...args)`, and `json(...args)`: the command with --json, which must succeed,
 * answering the parsed output.
 */
export function commandsOf(session: CliSession) {
  const ferrum = (...args: string[]) => session.ferrum(args);
  const json = async (...args: string[]) => {
    const result = await ferrum(...args, '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  return { ferrum, json };
}
