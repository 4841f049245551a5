/**
 * Reading a small file that someone else names: a cgroup path a runtime
 * sends, a hook file in a directory others write to. Opened without
 * blocking, so that a named pipe cannot hang the read; only a regular file
 * is read (not a pipe, a device such as `/dev/zero`, a socket or a
 * directory), and only up to a size.
 */
import { constants, open } from "node:fs/promises";
import type { Stats } from "node:fs";

export interface ReadRegularFileOptions {
  /** The most bytes to read; a longer file is refused. */
  maxBytes: number;
  /** Stops the read between chunks. */
  signal?: AbortSignal;
}

/** What the file is, when it is not a regular one. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a named pipe";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

/** An error shaped as Node.js shapes its file errors: `code`, `path`, and a message without the path. */
function fileError(code: string, path: string, message: string): Error & { code: string; path: string } {
  return Object.assign(new Error(message), { code, path });
}

const CHUNK = 64 * 1024;

/**
 * The contents of the regular file at `path` (symbolic links followed).
 * @throws the open's error as Node.js gives it (ENOENT, EACCES, ...); an
 * error with code `EISDIR` for a directory, `ERR_NOT_REGULAR_FILE` for a
 * pipe, device or socket (its message says which), `EFBIG` for a file
 * longer than `maxBytes`; the signal's reason when it aborts
 */
export async function readRegularFile(path: string, options: ReadRegularFileOptions): Promise<Buffer> {
  const { maxBytes, signal } = options;
  signal?.throwIfAborted();
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw fileError("EISDIR", path, "is a directory");
    if (!stats.isFile()) throw fileError("ERR_NOT_REGULAR_FILE", path, `not a regular file: ${kindOf(stats)}`);
    const tooBig = () => fileError("EFBIG", path, `larger than ${maxBytes} bytes`);
    // Files of /proc and /sys say 0 or a page whatever they hold: their size only refuses early.
    if (stats.size > maxBytes) throw tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, CHUNK));
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
