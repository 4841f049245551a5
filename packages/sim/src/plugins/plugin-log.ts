import type { Writable } from "node:stream";
import { createLogger, type Logger } from "@nri-ts/stub";

/**
 * The logger of every stub nri-sim runs a plugin with, a plugin object in
 * this process or a module in its child process alike: JSON lines from info
 * up, each one a line of the plugin's output in the report (which the text
 * report shows as `message field=value`, with the level unless it is info).
 */
export function pluginStubLogger(stream: Pick<Writable, "write">): Logger {
  return createLogger({ level: "info", stream });
}
