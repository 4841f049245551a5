/**
 * `forward.ts <listen> <connect>`: a byte pipe for each connection, where
 * each side is `host:port` or a unix socket path. The nodes' network
 * namespaces reach the API server on the host's loopback through two of
 * them: one on the host from a unix socket in the cluster's directory
 * (unix sockets are files, seen from every network namespace) to the API
 * server, and one in each node from the `kubernetes` Service's address
 * (10.0.0.1:443, on the node's loopback) to that socket, which is what
 * kube-proxy would do for in-cluster clients. Prints `listening` once it is.
 */
import { connect, createServer, type Socket } from "node:net";

function endpoint(text: string): { path: string } | { host: string; port: number } {
  const match = /^([\d.]+):(\d+)$/.exec(text);
  return match ? { host: match[1] as string, port: Number(match[2]) } : { path: text };
}

const [listen, target] = process.argv.slice(2);
if (!listen || !target) {
  console.error("usage: forward.ts <listen host:port or socket path> <connect host:port or socket path>");
  process.exit(2);
}

const server = createServer((client: Socket) => {
  const upstream = connect(endpoint(target));
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
});
server.on("error", (error) => {
  console.error(`forward ${listen} -> ${target}: ${error.message}`);
  process.exit(1);
});
server.listen(endpoint(listen), () => console.log("listening"));
process.on("SIGTERM", () => process.exit(0));
