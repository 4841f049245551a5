/**
 * The events two loggers saw, in one shape, to compare them and to tabulate
 * what the runtime sent: our logger (`@nri-ts/plugin-logger`, YAML dumps
 * in logrus text lines) and the Go logger (`cmd/adaptation-plugin -mode
 * logger` of packages/conformance, JSON lines).
 */
import { ContainerState } from "@nri-ts/api";
import { parse } from "yaml";
import { parseLogrus } from "./log-file.js";

export interface SeenEvent {
  event: string;
  /** The pod sandbox id. */
  pod?: string;
  /** The container id (for ValidateContainerAdjustment, the adjusted container's). */
  container?: string;
  /** Container fields, zero where the runtime sent nothing. */
  state?: ContainerState;
  pid?: number;
  createdAt?: bigint;
  startedAt?: bigint;
  finishedAt?: bigint;
  exitCode?: number;
  statusReason?: string;
  statusMessage?: string;
}

/** The events with a container in them. */
const CONTAINER_EVENTS = new Set([
  "CreateContainer",
  "PostCreateContainer",
  "StartContainer",
  "PostStartContainer",
  "UpdateContainer",
  "PostUpdateContainer",
  "StopContainer",
  "RemoveContainer",
]);

type Dumped = Record<string, unknown>;

const big = (value: unknown) => (value === undefined ? 0n : BigInt(value as bigint | number | string));

function containerFields(c: Dumped): Omit<SeenEvent, "event"> {
  return {
    pod: c.pod_sandbox_id as string,
    container: c.id as string,
    state: Number(c.state ?? 0),
    pid: Number(c.pid ?? 0),
    createdAt: big(c.created_at),
    startedAt: big(c.started_at),
    finishedAt: big(c.finished_at),
    exitCode: Number(c.exit_code ?? 0),
    statusReason: (c.status_reason as string) ?? "",
    statusMessage: (c.status_message as string) ?? "",
  };
}

/**
 * Our logger's events from its log text: each `<Event>: <tag>:` line opens
 * a YAML block (`pod`, `container`, `request`, ...) whose lines follow as
 * `<Event>:    <yaml>`; the blocks of one event come one after the other.
 */
export function tsLoggerEvents(text: string): SeenEvent[] {
  const events: { event: string; blocks: Map<string, string[]> }[] = [];
  let block: string[] | undefined;
  let prefix = "";
  for (const line of text.split("\n")) {
    const msg = parseLogrus(line)?.msg;
    if (msg === undefined) continue;
    const header = /^(\w+): (\w+):$/.exec(msg);
    if (header) {
      const [, event, tag] = header;
      let current = events.at(-1);
      if (!current || current.event !== event || current.blocks.has(tag)) {
        current = { event, blocks: new Map() };
        events.push(current);
      }
      current.blocks.set(tag, (block = []));
      prefix = `${event}:    `;
    } else if (block && msg.startsWith(prefix)) {
      block.push(msg.slice(prefix.length));
    } else {
      block = undefined;
    }
  }
  return events.map(({ event, blocks }) => {
    const yaml = (tag: string) => {
      const lines = blocks.get(tag);
      return lines ? ((parse(lines.join("\n"), { intAsBigInt: true }) as Dumped | null) ?? {}) : undefined;
    };
    if (CONTAINER_EVENTS.has(event)) return { event, ...containerFields(yaml("container") ?? {}) };
    if (event === "ValidateContainerAdjustment") {
      const request = yaml("request") ?? {};
      return { event, container: (request.container as Dumped | undefined)?.id as string };
    }
    const pod = yaml("pod");
    return pod ? { event, pod: pod.id as string } : { event };
  });
}

/** The Go logger's events from its JSON lines (64-bit times kept exact). */
export function goLoggerEvents(text: string): SeenEvent[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line.replace(/"(createdAt|startedAt|finishedAt)":(-?\d+)/g, '"$1":"$2"')) as Dumped)
    .filter((line) => line.event !== "Configure" && line.event !== "Shutdown")
    .map((line): SeenEvent => {
      const event = line.event as string;
      if (CONTAINER_EVENTS.has(event)) {
        return {
          event,
          pod: line.pod as string,
          container: line.container as string,
          state: ContainerState[line.state as keyof typeof ContainerState] as ContainerState,
          createdAt: big(line.createdAt),
          startedAt: big(line.startedAt),
          finishedAt: big(line.finishedAt),
          exitCode: Number(line.exitCode ?? 0),
          statusReason: (line.statusReason as string) ?? "",
          statusMessage: (line.statusMessage as string) ?? "",
        };
      }
      if (event === "ValidateContainerAdjustment") return { event, container: line.container as string };
      return line.pod === undefined ? { event } : { event, pod: line.pod as string };
    });
}

/** An event without what only one logger records (the pid: the Go logger does not print it). */
export function comparable({ pid: _pid, ...rest }: SeenEvent): Omit<SeenEvent, "pid"> {
  return rest;
}

const STATE_NAMES: Record<number, string> = { 0: "UNKNOWN", 1: "CREATED", 2: "PAUSED", 3: "RUNNING", 4: "STOPPED" };

/** One cell: the state, then which of pid and fields 14-19 were set (`exit N` for the code). */
function describeFields(e: SeenEvent): string {
  const parts = [STATE_NAMES[e.state ?? 0] ?? String(e.state)];
  if (e.pid) parts.push("pid");
  if (e.createdAt) parts.push("created");
  if (e.startedAt) parts.push("started");
  if (e.finishedAt) parts.push("finished");
  if (e.exitCode) parts.push(`exit ${e.exitCode}`);
  if (e.statusReason) parts.push(`reason ${e.statusReason}`);
  if (e.statusMessage) parts.push("message");
  return parts.join(" ");
}

/** A markdown table: per container event (rows), what each container (columns, by name) carried. */
export function statusTable(events: readonly SeenEvent[], containers: Readonly<Record<string, string>>): string {
  const names = Object.keys(containers);
  const rows = [...CONTAINER_EVENTS, "ValidateContainerAdjustment"].flatMap((event) => {
    const cells = names.map((name) => {
      const found = events.filter((e) => e.event === event && e.container === containers[name]);
      if (found.length === 0) return "-";
      return found.map((e) => (event === "ValidateContainerAdjustment" ? "sent" : describeFields(e))).join("; ");
    });
    return cells.every((cell) => cell === "-") ? [] : [`| ${event} | ${cells.join(" | ")} |`];
  });
  return [`| event | ${names.join(" | ")} |`, `|---|${names.map(() => "---").join("|")}|`, ...rows].join("\n");
}
