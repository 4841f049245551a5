/**
 * Node.js system errors worded as Go's `*os.PathError` words them
 * (`open /etc/x.json: permission denied`), and Go's "does not exist" test,
 * for ports whose error texts come from Go's os package. Nothing here
 * touches the file system: it reads the `code` Node.js puts on its errors.
 */

/** strerror texts as Go's syscall package has them, for the errors file reads meet. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EIO: "input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files in system",
  EINVAL: "invalid argument",
};

type FsError = Error & { code?: string };

/** A Node.js system error's code (`ENOENT`), if it has one. */
export function codeOf(error: unknown): string | undefined {
  return (error as FsError | undefined)?.code;
}

/** The error as Go's os functions would report it: `<op> <path>: <errno text>`. */
export function goPathError(op: string, path: string, error: unknown): Error {
  const code = codeOf(error);
  const text = (code !== undefined && ERRNO_TEXT[code]) || (error as Error).message;
  return Object.assign(new Error(`${op} ${path}: ${text}`, { cause: error }), { code, path });
}

/** errors.Is(err, fs.ErrNotExist): the error is (or wraps) ENOENT. */
export function isNotExist(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if ((e as FsError).code === "ENOENT") return true;
  }
  return false;
}
