import type { commandExecMethods } from '../../../shared/protocol/index.js';
import type { CommandExecService } from '../terminal/command-exec-service.js';
import type { HandlerTable } from './handler-table.js';

/** command/exec*: the person's terminals and standalone commands, each owned by the connection that started it. */
export function commandExecHandlers(commandExec: CommandExecService): HandlerTable<typeof commandExecMethods> {
  return {
    'command/exec': (params, ctx) => commandExec.exec(params, ctx.session.connectionId),
    'command/exec/write': (params, ctx) => commandExec.write(params, ctx.session.connectionId),
    'command/exec/resize': (params, ctx) => commandExec.resize(params, ctx.session.connectionId),
    'command/exec/terminate': (params, ctx) => commandExec.terminate(params, ctx.session.connectionId),
    'command/exec/ack': (params, ctx) => commandExec.ack(params, ctx.session.connectionId),
    'command/exec/foreground': (params, ctx) => commandExec.foreground(params, ctx.session.connectionId),
  };
}
