// Runs cmd/mux-peer (the upstream Go mux, and with -nri Go's ttrpc over it)
// against our mux over a unix stream socket, and follows what it reports.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Mux, type MuxConnection, type MuxOptions, socketPair } from "@nri-ts/mux";
import { goCommand } from "./go.js";

/** What mux-peer reports on stdout, one JSON object a line. */
export interface PeerEvent {
  event: string;
  conn?: number;
  len?: number;
  size?: number;
  error?: string;
  /** With -nri, the outcome of call `id`: its status code and message, and the response. */
  id?: number;
  code?: number;
  message?: string;
  key?: string;
  value?: string;
  valueLength?: number;
  list?: string[];
}

/** A running mux-peer and our mux on the other end of its trunk. */
export interface Session {
  mux: Mux;
  conns: Map<number, MuxConnection>;
  events: PeerEvent[];
  /** The first event (seen or to come) that matches. */
  next(match: (event: PeerEvent) => boolean): Promise<PeerEvent>;
  /** Writes a line to mux-peer's stdin ("close", "unblock", a call as JSON). */
  command(line: string): void;
  exit: Promise<number | null>;
}

export interface StartOptions extends MuxOptions {
  /** Connections our side opens before mux-peer starts. */
  open?: number[];
  /** Trunk: an inherited fd 3 (as the runtime starts a plugin) or a dialled socket path. */
  via?: "fd" | "socket";
}

const children: ChildProcess[] = [];

/** Kills every mux-peer still running (for afterEach or afterAll). */
export function stopPeers(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
}

/** Builds mux-peer (in a beforeAll, so a cold Go build gets its own timeout). */
export async function buildPeer(): Promise<void> {
  await goCommand("mux-peer");
}

/** Starts mux-peer with `flags` and our mux on the other end; resolves once it is ready. */
export async function start(flags: string[], options: StartOptions = {}): Promise<Session> {
  const binary = await goCommand("mux-peer");
  const { open = [], via = "fd", ...muxOptions } = options;
  let child: ChildProcess;
  let trunk: net.Socket;
  if (via === "fd") {
    const pair = await socketPair();
    trunk = pair.local;
    child = spawn(binary, ["-fd", "3", ...flags], { stdio: ["pipe", "pipe", "inherit", pair.peer] });
    pair.peer.destroy();
  } else {
    const dir = await mkdtemp(join(tmpdir(), "mux-peer-"));
    const path = join(dir, "nri.sock");
    const server = net.createServer();
    server.listen(path);
    await once(server, "listening");
    child = spawn(binary, ["-socket", path, ...flags], { stdio: ["pipe", "pipe", "inherit"] });
    [trunk] = (await once(server, "connection")) as [net.Socket];
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
  children.push(child);
  const mux = new Mux(trunk, muxOptions);
  const conns = new Map(open.map((id) => [id, mux.open(id)]));

  const events: PeerEvent[] = [];
  const waiters: Array<{ match: (event: PeerEvent) => boolean; resolve: (event: PeerEvent) => void }> = [];
  // "close", not "exit": every line of its stdout has been read by then
  const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const event = JSON.parse(line) as PeerEvent;
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  const session: Session = {
    mux,
    conns,
    events,
    next: (match) => {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<PeerEvent>((resolve) => waiters.push({ match, resolve })),
        exit.then((code): never => {
          throw new Error(`mux-peer exited (${code}) before the event came; it said ${JSON.stringify(events)}`);
        }),
      ]);
    },
    command: (line) => child.stdin!.write(`${line}\n`),
    exit,
  };
  await session.next((e) => e.event === "ready");
  return session;
}
