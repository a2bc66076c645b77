import type { FunctionInvocation, FunctionResult } from './function-executor.js';
import type { CallOutcome } from './types.js';

/** What travels on the dispatch queue: one call to run. */
export interface CallMessage {
  invocation: FunctionInvocation;
  /** The reply channel of the controller waiting for a sync call; none for async calls. */
  replyTo?: string;
  /** A sync call not started by then is not run: its caller has stopped waiting (epoch ms). */
  startBy?: number;
}

/** What a runner publishes to the waiting controller when a sync call ends. */
export interface CallReply {
  callId: string;
  outcome: CallOutcome;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  errorMessage?: string;
}

interface WireMessage extends Omit<CallMessage, 'invocation'> {
  invocation: Omit<FunctionInvocation, 'body'> & { body: string };
}

export function encodeCallMessage(message: CallMessage): string {
  const wire: WireMessage = {
    ...message,
    invocation: { ...message.invocation, body: message.invocation.body.toString('base64') },
  };
  return JSON.stringify(wire);
}

export function decodeCallMessage(raw: string): CallMessage {
  const wire = JSON.parse(raw) as WireMessage;
  return { ...wire, invocation: { ...wire.invocation, body: Buffer.from(wire.invocation.body, 'base64') } };
}

export function encodeCallReply(callId: string, result: FunctionResult): string {
  const { outcome, status, headers, errorMessage } = result;
  return JSON.stringify({ callId, outcome, status, headers, errorMessage, body: result.body.toString('base64') });
}

export function decodeCallReply(raw: string): CallReply {
  const wire = JSON.parse(raw) as Omit<CallReply, 'body'> & { body: string };
  return { ...wire, body: Buffer.from(wire.body, 'base64') };
}
