/** fast-check arbitraries the encoders' property tests share. */
import fc from "fast-check";

/** Strings as fields hold them: empty, ASCII, graphemes, lone surrogates, long enough for a two-byte length. */
export const text = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }), // lone surrogates too
  fc.string({ minLength: 130, maxLength: 300 }),
);
