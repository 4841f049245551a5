// Serves Echo on the socket given as first argument until stdin ends;
// prints {"ready":true} once listening (the same contract as `ttrpc-peer serve`).
import { rmSync } from "node:fs";
import { createServer } from "../src/index.js";
import { EchoDefinition } from "./echo-service.js";

const socket = process.argv[2];
rmSync(socket, { force: true });
const server = createServer().add(EchoDefinition, { echo: async (request) => request });
await server.listen(socket);
process.stdout.write('{"ready":true}\n');
process.stdin.resume();
process.stdin.on("end", () => {
  server.forceShutdown();
  process.exit(0);
});
