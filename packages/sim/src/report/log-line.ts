/**
 * Plugin log lines made readable for the report: logrus' logfmt
 * (`time="…" level=info msg="…"`, what Go plugins write when not on a
 * terminal) and JSON lines (`{"level":"warn","msg":"…"}`, pino and the
 * @nri-ts/stub logger) become the message, prefixed with the level unless
 * it is info, followed by any other fields. Other lines stay as they are.
 */

const LOGFMT_PAIR = /([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)/y;

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  try {
    return JSON.parse(value) as string;
  } catch {
    return value.slice(1, -1);
  }
}

function parseLogfmt(text: string): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < text.length) {
    while (text[at] === " ") at++;
    if (at >= text.length) break;
    LOGFMT_PAIR.lastIndex = at;
    const match = LOGFMT_PAIR.exec(text);
    if (!match) return undefined;
    fields.set(match[1], unquote(match[2]));
    at = LOGFMT_PAIR.lastIndex;
  }
  return fields.has("msg") && fields.has("level") ? fields : undefined;
}

function parseJson(text: string): Map<string, string> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const object = JSON.parse(text) as Record<string, unknown>;
    if (typeof object.msg !== "string") return undefined;
    return new Map(
      Object.entries(object).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]),
    );
  } catch {
    return undefined;
  }
}

/** The level and message of a log line (logfmt or JSON); undefined for other lines. */
export function logLineMessage(text: string): { level: string; message: string } | undefined {
  const fields = parseLogfmt(text) ?? parseJson(text);
  return fields && { level: fields.get("level") ?? "info", message: fields.get("msg") ?? "" };
}

/** The line as a person wants to read it in the report. */
export function readableLogLine(text: string): string {
  const fields = parseLogfmt(text) ?? parseJson(text);
  if (!fields) return text;
  const level = fields.get("level") ?? "info";
  const extra = [...fields]
    .filter(([key]) => key !== "time" && key !== "level" && key !== "msg")
    .map(([key, value]) => ` ${key}=${value}`)
    .join("");
  return `${level === "info" ? "" : `${level}: `}${fields.get("msg")}${extra}`;
}
