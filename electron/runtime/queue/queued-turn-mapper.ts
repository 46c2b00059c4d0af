import { toTurnError, type QueuedTurn, type TurnFailure } from '../../../shared/protocol/index.js';
import type { QueuedTurnRecord } from '../../store/queue-store.js';

/** The message a row left dispatching by a crash is recovered with (seed 003). */
export const INTERRUPTED_DISPATCH_MESSAGE = 'queued turn dispatch was interrupted while app-server restarted';

export function queueError(message: string): TurnFailure {
  return { message, kind: 'other', httpStatus: null, additionalDetails: null };
}

/** A visible row on the wire: the seed's QueuedTurn, which is also a Codex 0.169 QueuedSubmission. */
export function toWireQueuedTurn(record: QueuedTurnRecord): QueuedTurn {
  return {
    id: record.id,
    turnStartParams: record.turnStartParams,
    status:
      record.state === 'failed'
        ? { type: 'failed', error: toTurnError(record.failure ?? queueError('queued turn dispatch failed')) }
        : { type: 'pending' },
    clientUserMessageId: record.clientUserMessageId ?? record.id,
    input: record.turnStartParams.input,
    responsesapiClientMetadata: record.clientMetadata,
  };
}
