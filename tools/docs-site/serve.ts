/**
 * The built site served as GitHub Pages serves a project's site: static
 * files under a path prefix (`/nri-ts/`), on a loopback port, so that a
 * link that works here works there.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".yaml": "text/plain; charset=utf-8",
};

export interface Site {
  /** `http://127.0.0.1:<port>/nri-ts/` */
  url: string;
  close(): Promise<void>;
}

export async function serveSite(root: string, prefix = "/nri-ts/"): Promise<Site> {
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    if (!path.startsWith(prefix)) return void response.writeHead(404).end();
    let file = normalize(join(root, path.slice(prefix.length)));
    if (!file.startsWith(root)) return void response.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
