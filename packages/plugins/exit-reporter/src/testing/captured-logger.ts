/** A real logger (the stub's pino) whose lines the test reads back. */
import { createLogger } from "@nri-ts/stub";

/** The logger, and the messages it wrote (every level from debug). */
export function capture(): { logger: ReturnType<typeof createLogger>; messages: () => string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", stream: { write: (line: string) => lines.push(line) > 0 } });
  return { logger, messages: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg) };
}
