import { describe, expect, it } from "vitest";
import { codeOf, goPathError, isNotExist } from "./go-errors.js";

const nodeError = (code: string, message = `${code}: something`) => Object.assign(new Error(message), { code });

describe("goPathError", () => {
  it("words Node's errors as Go's os.PathError", () => {
    expect(goPathError("open", "/etc/x.json", nodeError("EACCES")).message).toBe("open /etc/x.json: permission denied");
    expect(goPathError("faccessat", "/bin/x", nodeError("ENOENT")).message).toBe(
      "faccessat /bin/x: no such file or directory",
    );
    expect(goPathError("read", "/etc", nodeError("EISDIR")).message).toBe("read /etc: is a directory");
    expect(goPathError("open", "/x", nodeError("EXDEV", "EXDEV: cross-device link")).message).toBe(
      "open /x: EXDEV: cross-device link",
    );
  });

  it("keeps the code and the cause, so that errors.Is(err, fs.ErrNotExist) can be asked", () => {
    const error = goPathError("open", "/x", nodeError("ENOENT"));
    expect(codeOf(error)).toBe("ENOENT");
    expect(isNotExist(error)).toBe(true);
    expect(isNotExist(new Error("wrapped", { cause: error }))).toBe(true);
    expect(isNotExist(goPathError("open", "/x", nodeError("ENOTDIR")))).toBe(false);
    expect(codeOf(undefined)).toBeUndefined();
  });
});
