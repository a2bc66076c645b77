import { Agent, request } from 'undici';
import { OutboundRefused, type OutboundGuard } from '../../core/outbound-guard.js';

/**
 * What a subscriber did with one delivery: its HTTP status (0 when none) and an error text;
 * `final` when trying again cannot help (the message's hop budget is spent).
 */
export interface DeliveryOutcome {
  statusCode: number;
  error: string;
  final?: boolean;
}

// Larger response bodies are not read: the connection is closed instead.
const MAX_RESPONSE_BYTES = 64 * 1024;

/** POSTs push deliveries over pooled keep-alive connections, each bounded by a timeout. */
export class PushHttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    connectionsPerOrigin: number,
    guard: OutboundGuard,
  ) {
    // Connect, answer headers and answer body are each bounded by the timeout (cheaper than a
    // timer per request). Every connection passes the guard: no internal addresses.
    this.agent = new Agent({
      connections: connectionsPerOrigin,
      connect: guard.agentConnect(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  async post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<DeliveryOutcome> {
    try {
      const response = await request(url, {
        method: 'POST',
        body,
        headers,
        dispatcher: this.agent,
      });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES });
      const accepted = response.statusCode === 200 || response.statusCode === 202;
      return { statusCode: response.statusCode, error: accepted ? '' : `subscriber answered ${response.statusCode}` };
    } catch (error) {
      return { statusCode: 0, error: describeFailure(error, this.timeoutMs) };
    }
  }

  /** Ends every connection, failing deliveries still in flight. */
  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof OutboundRefused) return `refused: ${error.message}`;
  const code = (error as Error & { code?: string }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `no connection within ${timeoutMs} ms`;
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  const causeCode = cause?.code ?? code;
  return causeCode ? `${causeCode}: ${cause?.message ?? error.message}` : error.message;
}
