import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedText, PLUGIN_TEXT_LIMIT, pluginText, truncationMark } from "./plugin-text.js";

const MARK = /… \[(\d+) more bytes\]$/;

/** The head of a bounded text and how many bytes it says were left out (0: none). */
function parts(text: string): { head: string; more: number } {
  const match = MARK.exec(text);
  return match ? { head: text.slice(0, match.index), more: Number(match[1]) } : { head: text, more: 0 };
}

describe("pluginText", () => {
  it("keeps a text within the limit as it is", () => {
    expect(pluginText(Buffer.from("boom"))).toBe("boom");
    expect(pluginText(Buffer.alloc(PLUGIN_TEXT_LIMIT, "x"))).toBe("x".repeat(PLUGIN_TEXT_LIMIT));
  });

  it("keeps the head of a longer one and says how many bytes it left out", () => {
    expect(pluginText(Buffer.alloc(PLUGIN_TEXT_LIMIT + 5, "x"))).toBe(
      `${"x".repeat(PLUGIN_TEXT_LIMIT)}… [5 more bytes]`,
    );
    expect(pluginText(Buffer.from("abcdef"), 6, 4)).toBe("abcd… [2 more bytes]");
  });

  it("counts what was never read", () => {
    // the first 4 bytes of a text of 540 MB
    expect(pluginText(Buffer.from("abcd"), 540_000_000, 4)).toBe(`abcd${truncationMark(539_999_996)}`);
    expect(pluginText(Buffer.from("ab"), 10, 4)).toBe("ab… [8 more bytes]");
  });

  it("never splits a character", () => {
    // "é" is 2 bytes, "€" 3, "😀" 4
    expect(pluginText(Buffer.from("aé"), 3, 2)).toBe("a… [2 more bytes]");
    expect(pluginText(Buffer.from("a€b"), 5, 3)).toBe("a… [4 more bytes]");
    expect(pluginText(Buffer.from("a😀"), 5, 4)).toBe("a… [4 more bytes]");
    expect(pluginText(Buffer.from("a😀b"), 6, 5)).toBe("a😀… [1 more bytes]");
    expect(pluginText(Buffer.from("a😀"), 40, 3)).toBe("a… [39 more bytes]");
  });

  it("decodes invalid UTF-8 as Node does", () => {
    expect(pluginText(Uint8Array.of(0x61, 0xff, 0x62))).toBe("a\ufffdb");
  });

  it("bounds any bytes cut anywhere: a prefix of the text, within the limit, with an exact count", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 60 }).map((text) => Buffer.from(text)),
          fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
        ),
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 64 }),
        (bytes, limit, read) => {
          const head = bytes.subarray(0, Math.min(read, bytes.length));
          const text = pluginText(head, bytes.length, limit);
          if (head.length === bytes.length && bytes.length <= limit) {
            expect(text).toBe(bytes.toString("utf8"));
            return;
          }
          const { head: kept, more } = parts(text);
          const keptBytes = bytes.length - more;
          expect(keptBytes).toBeGreaterThanOrEqual(0);
          expect(keptBytes).toBeLessThanOrEqual(Math.min(limit, head.length));
          // at most the 3 bytes of a split character are left out beyond the limit
          expect(keptBytes).toBeGreaterThanOrEqual(Math.min(limit, head.length) - 3);
          expect(kept).toBe(bytes.subarray(0, keptBytes).toString("utf8"));
          // a valid text keeps a prefix of itself: no character is split
          if (Buffer.from(bytes.toString("utf8")).equals(bytes))
            expect(bytes.toString("utf8").startsWith(kept)).toBe(true);
        },
      ),
    );
  });
});

describe("boundedText", () => {
  it("keeps a short text, cuts a long one", () => {
    expect(boundedText("boom")).toBe("boom");
    expect(boundedText("x".repeat(PLUGIN_TEXT_LIMIT + 1))).toBe(`${"x".repeat(PLUGIN_TEXT_LIMIT)}… [1 more bytes]`);
    // 30,000 three-byte characters are 90,000 bytes
    expect(boundedText("€".repeat(30_000))).toBe(`${"€".repeat(21_845)}… [24465 more bytes]`);
  });

  it("gives a prefix of the text, within the limit, with an exact count", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.integer({ min: 0, max: 64 }), (text, limit) => {
        const total = Buffer.byteLength(text);
        const bounded = boundedText(text, limit);
        if (total <= limit) {
          expect(bounded).toBe(text);
          return;
        }
        const { head, more } = parts(bounded);
        expect(text.startsWith(head)).toBe(true);
        expect(Buffer.byteLength(head)).toBeLessThanOrEqual(limit);
        expect(Buffer.byteLength(head) + more).toBe(total);
      }),
    );
  });
});
