/**
 * Text that comes from the other side (an error a plugin answers with, a
 * line it logs or writes to stderr, a validator's reason; a command line or
 * a status message a runtime sends a plugin) is kept to a bounded size: a
 * peer can send hundreds of megabytes of it, more than a JavaScript string
 * can hold (about 512 MiB of characters), and it is passed on into logs,
 * errors and records. The head is kept, cut at a character boundary, and
 * the cut is marked with how many bytes were left out. The runtime side
 * (`@nri-ts/adaptation`) and plugins use the same helpers.
 */

/** How many bytes of UTF-8 a text from a plugin keeps: 64 KiB. */
export const PLUGIN_TEXT_LIMIT = 64 * 1024;

/** What marks a cut text: `… [N more bytes]`. */
export function truncationMark(more: number): string {
  return `… [${more} more bytes]`;
}

/**
 * The UTF-8 text of the first `bytes` of a longer text of `total` bytes
 * (the rest never read), at most `limit` bytes of it, ending with
 * `truncationMark` when anything was left out. Invalid UTF-8 decodes to
 * U+FFFD, as Node's decoder does; a character that the cut would split is
 * left out whole.
 */
export function pluginText(bytes: Uint8Array, total = bytes.length, limit = PLUGIN_TEXT_LIMIT): string {
  const available = Math.min(bytes.length, total);
  if (available === total && total <= limit) return Buffer.from(bytes.buffer, bytes.byteOffset, total).toString("utf8");
  let end = Math.min(available, limit);
  if (end < total) end = wholeCharacters(bytes, end);
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("utf8");
  return `${head}${truncationMark(total - end)}`;
}

/** Where to cut `bytes` at or before `end` so that the last character is whole. */
function wholeCharacters(bytes: Uint8Array, end: number): number {
  // the last character starts at most 3 bytes before the cut
  for (let i = end - 1; i >= 0 && i >= end - 3; i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) !== 0x80) return utf8Length(byte) > end - i ? i : end;
  }
  return end;
}

/** How many bytes the UTF-8 sequence that starts with this byte takes (1 for a byte that starts none). */
function utf8Length(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc2) return 2;
  return 1;
}

/** A string from a plugin, bounded as `pluginText` bounds its bytes. */
export function boundedText(text: string, limit = PLUGIN_TEXT_LIMIT): string {
  // a UTF-16 unit takes at most 3 bytes of UTF-8
  if (text.length * 3 <= limit) return text;
  const total = Buffer.byteLength(text, "utf8");
  if (total <= limit) return text;
  // `limit` units take at least `limit` bytes: enough for the head
  return pluginText(Buffer.from(text.slice(0, limit), "utf8"), total, limit);
}
