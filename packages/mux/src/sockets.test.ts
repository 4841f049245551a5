import { spawn } from "node:child_process";
import { once } from "node:events";
import { openSync, closeSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { Mux } from "./mux.js";
import { connectFd, socketPair } from "./sockets.js";
import { readAll, settle } from "./testing/support.js";

/** A child process that runs our mux over its fd 3 and answers conn 1 in upper case. */
const childProgram = `
const { Mux, connectFd } = await import(process.env.MUX_ENTRY);
const mux = new Mux(connectFd(3));
const conn = mux.open(1);
conn.on("data", (bytes) => conn.write(Buffer.from(bytes.toString("latin1").toUpperCase(), "latin1")));
mux.on("close", (reason) => process.stdout.write(reason.code));
`;

describe("socketPair", () => {
  it("gives two connected sockets", async () => {
    const { local, peer } = await socketPair();
    peer.write("ping");
    local.write("pong");
    local.end();
    peer.end();
    expect(await readAll(local)).toEqual(Buffer.from("ping"));
    expect(await readAll(peer)).toEqual(Buffer.from("pong"));
  });

  it("hands the peer end to a child as fd 3, with bytes sent before the child started", async () => {
    const { local, peer } = await socketPair();
    const mux = new Mux(local);
    const conn = mux.open(1);
    conn.write("sent before the child exists, ");
    await settle();
    expect(peer.bytesRead).toBe(0);

    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", childProgram], {
      stdio: ["ignore", "pipe", "inherit", peer],
      env: { ...process.env, MUX_ENTRY: pathToFileURL(fileURLToPath(new URL("./index.ts", import.meta.url))).href },
    });
    const exited = once(child, "exit");
    peer.destroy();
    const childOutput = readAll(child.stdout!);
    conn.write("and after");

    const expected = "SENT BEFORE THE CHILD EXISTS, AND AFTER";
    let answer = "";
    for await (const chunk of conn) {
      answer += (chunk as Buffer).toString();
      if (answer.length >= expected.length) break;
    }
    expect(answer).toBe(expected);

    mux.close();
    expect((await childOutput).toString()).toBe("ERR_MUX_TRUNK_ENDED");
    expect((await exited)[0]).toBe(0);
  });
});

describe("connectFd", () => {
  // wrapping a real inherited fd is shown by the child process above
  it("refuses a number that is no fd", () => {
    expect(() => connectFd(-1)).toThrow(
      expect.objectContaining({ code: "ERR_MUX_INVALID_FD", message: "-1 is not a file descriptor" }),
    );
  });

  it("refuses an fd that is not a socket", () => {
    const fd = openSync(fileURLToPath(import.meta.url), "r");
    try {
      expect(() => connectFd(fd)).toThrow(
        expect.objectContaining({
          code: "ERR_MUX_INVALID_FD",
          message: `fd ${fd} is not a socket: Unsupported fd type: FILE`,
        }),
      );
    } finally {
      closeSync(fd);
    }
  });
});
