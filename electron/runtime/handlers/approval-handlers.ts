import type { approvalMethods } from '../../../shared/protocol/index.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { ThreadManager } from '../thread-manager.js';
import type { HandlerTable } from './handler-table.js';

/** approval/*: what waits for the person, their answers, and the grants "for this session" left behind. */
export function approvalHandlers(approvals: ApprovalBroker, threads: ThreadManager): HandlerTable<typeof approvalMethods> {
  return {
    'approval/list': (params) => ({ data: approvals.list(params.threadId) }),
    'approval/answer': (params) => {
      if ('response' in params) approvals.answerMcp(params.requestId, params.response);
      else approvals.answer(params.requestId, params.decision);
      return {};
    },
    'approval/grants/list': (params) => {
      if (!params.threadId) return { data: approvals.allGrants() };
      threads.require(params.threadId);
      return { data: approvals.grantsOf(params.threadId) };
    },
    'approval/grants/revoke': (params) => {
      threads.require(params.threadId);
      return { revoked: approvals.revoke(params.threadId, params.prefix, params.kind ?? 'command') };
    },
  };
}
