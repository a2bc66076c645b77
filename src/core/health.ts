import { VERSION } from './version.js';

/** The answer of every GET /health (controller and standalone runner): alive, and which release runs. */
export function healthAnswer(): { status: 'ok'; version: string } {
  return { status: 'ok', version: VERSION };
}
