import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineSplitter, readPluginLines } from "./plugin-lines.js";
import { PLUGIN_TEXT_LIMIT, pluginText } from "@nri-ts/common";

function split(chunks: Uint8Array[], limit?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), limit);
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

/** What the lines of `bytes` are, one by one, each bounded. */
function expectedLines(bytes: Uint8Array, limit: number): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const next = end < 0 ? bytes.length : end + 1;
    if (end < 0) end = bytes.length;
    const line = bytes.subarray(start, end > start && bytes[end - 1] === 0x0d ? end - 1 : end);
    lines.push(pluginText(line, line.length, limit));
    start = next;
  }
  return lines;
}

describe("LineSplitter", () => {
  it("splits at newlines, drops the carriage return of CRLF, keeps a last line without a newline", () => {
    expect(split([Buffer.from("one\ntwo\r\n\nthree")])).toEqual(["one", "two", "", "three"]);
    expect(split([Buffer.from("a\r"), Buffer.from("\nb\n")])).toEqual(["a", "b"]);
    expect(split([Buffer.from("é"), Buffer.from([0xc3]), Buffer.from([0xa9, 0x0a])])).toEqual(["éé"]);
  });

  it("keeps the head of a long line, counts the rest, and goes on with the next line", () => {
    expect(split([Buffer.from("abcdefgh"), Buffer.from("ij\nnext\n")], 4)).toEqual(["abcd… [6 more bytes]", "next"]);
    expect(split([Buffer.from("abcd\r\n")], 4)).toEqual(["abcd"]);
    expect(split([Buffer.from("abcde\r\n")], 4)).toEqual(["abcd… [1 more bytes]"]);
  });

  it("splits any bytes in any chunks as the whole would split, each line bounded", () => {
    const bytes = fc
      .array(fc.constantFrom(0x0a, 0x0d, 0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80), { maxLength: 80 })
      .map((list) => Uint8Array.from(list));
    fc.assert(
      fc.property(
        bytes,
        fc.array(fc.nat(80), { maxLength: 6 }),
        fc.integer({ min: 0, max: 12 }),
        (input, cuts, limit) => {
          const points = [...new Set(cuts.filter((cut) => cut <= input.length))].sort((a, b) => a - b);
          const chunks = [0, ...points].map((from, i) => input.subarray(from, points[i] ?? input.length));
          expect(split(chunks, limit)).toEqual(expectedLines(input, limit));
        },
      ),
    );
  });
});

describe("readPluginLines", () => {
  it("reads a stream to its end; a line of 64 MiB keeps 64 KiB", async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    readPluginLines(input, (line) => lines.push(line));
    const ended = new Promise((resolve) => input.once("end", resolve));
    const block = Buffer.alloc(1024 * 1024, "x");
    for (let i = 0; i < 64; i++) input.write(block);
    input.end("\nlast words");
    await ended;
    expect(lines).toEqual([
      `${"x".repeat(PLUGIN_TEXT_LIMIT)}… [${64 * 1024 * 1024 - PLUGIN_TEXT_LIMIT} more bytes]`,
      "last words",
    ]);
  });
});
