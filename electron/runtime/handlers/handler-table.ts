import type { ClientMethod, MethodHandlers } from '../../../shared/protocol/index.js';
import type { RequestContext } from '../context.js';

/** The handlers of one namespace: a table keyed by the methods its `shared/protocol/methods/<ns>.ts` table declares. */
export type HandlerTable<Methods> = Pick<MethodHandlers<RequestContext>, keyof Methods & ClientMethod>;
