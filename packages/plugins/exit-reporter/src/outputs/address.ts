/**
 * Listen and connect addresses: a unix socket (`unix:///run/x.sock`,
 * `unix:/run/x.sock` or an absolute path) or TCP (`tcp://host:port`,
 * `host:port`, `:port` for every interface, `[::1]:port`).
 */

export type Address = { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number };

export class AddressError extends Error {
  override readonly name = "AddressError";
}

const TCP = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]/\s]*)):(\d{1,5})$/;

export function parseAddress(text: string): Address {
  const unix = /^unix:(?:\/\/)?(\/.*)$/.exec(text);
  if (unix) return { kind: "unix", path: unix[1] };
  if (text.startsWith("/")) return { kind: "unix", path: text };
  const tcp = TCP.exec(text.replace(/^tcp:\/\//, ""));
  const port = tcp ? Number(tcp[3]) : Number.NaN;
  if (!tcp || port > 65535) {
    throw new AddressError(
      `expected unix:///path/to.sock, an absolute socket path, or [host]:port, got ${JSON.stringify(text)}`,
    );
  }
  return { kind: "tcp", host: tcp[1] ?? tcp[2], port };
}

/** The address as gRPC (grpc-js) takes it: `unix:///path` or `host:port`. */
export function grpcTarget(address: Address, forListening = false): string {
  if (address.kind === "unix") return `unix://${address.path}`;
  const host = address.host === "" ? (forListening ? "0.0.0.0" : "localhost") : address.host;
  return `${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

export function formatAddress(address: Address): string {
  return address.kind === "unix" ? `unix://${address.path}` : grpcTarget(address, true);
}
