import type { FunctionInvocation, FunctionResult } from './function-executor.js';
import type { CallOutcome } from '../types.js';

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

/**
 * A reply as published: its body inline when small, else only the key where the runner stored it
 * for a short while (pub/sub carries small notifications only: a large message would overflow
 * the subscriber connection's output buffer, and Redis would close the connection every
 * listener of the process shares).
 */
export interface ReplyNotice extends Omit<CallReply, 'body'> {
  body: Buffer | null;
  bodyKey?: string;
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

/** `bodyKey`: where the body was stored instead of travelling in the notice. */
export function encodeCallReply(callId: string, result: FunctionResult, bodyKey?: string): string {
  const { outcome, status, headers, errorMessage } = result;
  const body = bodyKey ? undefined : result.body.toString('base64');
  return JSON.stringify({ callId, outcome, status, headers, errorMessage, body, bodyKey });
}

export function decodeCallReply(raw: string): ReplyNotice {
  const wire = JSON.parse(raw) as Omit<ReplyNotice, 'body'> & { body?: string };
  return { ...wire, body: wire.body === undefined ? null : Buffer.from(wire.body, 'base64') };
}
