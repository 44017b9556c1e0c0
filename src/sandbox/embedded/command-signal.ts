import type { Command, CustomCommand, ResolvedCommandContext } from "just-bash";
import { deadlineSignal } from "../stop-signal.ts";

/**
 * Our own commands (node, git, grep…) get a `ctx.signal` that sees a stop synchronously.
 * just-bash hands a custom command a signal of its own that follows the script's only through the
 * abort event, which a command busy in a loop never lets run; this one also reads the script's
 * signal (a stop-signal.ts signal) whenever the command polls `ctx.signal.aborted`.
 */
export function withStopSignal(commands: readonly CustomCommand[], stop: AbortSignal): CustomCommand[] {
  return commands.map((command) => wrap(command, stop));
}

function wrap(command: CustomCommand, stop: AbortSignal): CustomCommand {
  if ("load" in command) {
    return {
      name: command.name,
      ...(command.trusted !== undefined ? { trusted: command.trusted } : {}),
      load: async () => wrap(await command.load(), stop) as Command,
    };
  }
  const wrapped: Command = {
    name: command.name,
    ...(command.trusted !== undefined ? { trusted: command.trusted } : {}),
    async execute(args: string[], ctx: ResolvedCommandContext) {
      const handle = deadlineSignal({ parents: [ctx.signal, stop] });
      try {
        return await command.execute(args, Object.create(ctx, { signal: { value: handle.signal } }));
      } finally {
        handle.dispose();
      }
    },
  };
  return wrapped;
}
