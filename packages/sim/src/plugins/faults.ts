/**
 * Faults the simulator's own plugins commit on purpose (a step's `faults:`),
 * inside the plugin's process: the next request of the armed event (or the
 * next request at all) either gets its answer only after the request timeout
 * or makes the plugin drop its connection. Everything else goes to the
 * plugin's own handlers.
 */
import { eventName } from "@nri-ts/api";
import { HANDLER_EVENTS, type HandlerContext, type Plugin } from "@nri-ts/stub";
import type { FaultKind } from "../scenario/scenario.js";

/** A fault armed for the next matching request. */
export interface ArmedFault {
  fault: FaultKind;
  /** The event (e.g. `CreateContainer`); undefined: any. */
  on?: string;
}

/** How much later than the timeout a `timeout` fault answers. */
const LATE_MS = 100;

/** One plugin's switch: armed by the simulator before a step, taken by the first matching request. */
export class FaultSwitch {
  #armed: ArmedFault | undefined;
  #fired = false;

  arm(fault: ArmedFault): void {
    this.#armed = fault;
    this.#fired = false;
  }

  /** Disarms; says whether the fault happened. */
  disarm(): boolean {
    this.#armed = undefined;
    return this.#fired;
  }

  /** The armed fault, if it applies to a request of `event` (then it is used up). */
  take(event: string): ArmedFault | undefined {
    const armed = this.#armed;
    if (!armed || (armed.on !== undefined && armed.on !== event)) return undefined;
    this.#armed = undefined;
    this.#fired = true;
    return armed;
  }
}

function commit(fault: FaultKind, ctx: HandlerContext): Promise<never> | Promise<undefined> {
  if (fault === "disconnect") {
    void ctx.stub.stop();
    return new Promise<never>(() => {});
  }
  return new Promise<undefined>((resolve) => {
    const late = () => setTimeout(() => resolve(undefined), LATE_MS);
    if (ctx.signal.aborted) late();
    else ctx.signal.addEventListener("abort", late, { once: true });
  });
}

/** The plugin with each lifecycle handler checking `faults` first; `fired` hears each fault before it happens. */
export function faultingHandlers(
  plugin: Plugin,
  faults: FaultSwitch,
  fired: (fault: ArmedFault) => void = () => {},
): Plugin {
  const wrapped: Record<string, unknown> = { ...plugin };
  for (const [name, event] of Object.entries(HANDLER_EVENTS)) {
    const handler = plugin[name as keyof Plugin] as ((...args: unknown[]) => unknown) | undefined;
    if (handler === undefined) continue;
    const display = eventName(event);
    wrapped[name] = (...args: unknown[]) => {
      const fault = faults.take(display);
      if (!fault) return handler.apply(plugin, args);
      fired(fault);
      return commit(fault.fault, args[args.length - 1] as HandlerContext);
    };
  }
  return wrapped as Plugin;
}
