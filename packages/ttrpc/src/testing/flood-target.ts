/**
 * The server a flood test attacks, in a process of its own: the test
 * service on a unix socket (argv[2]); it tells its parent once it listens
 * and answers its "rss" requests.
 */
import { createServer } from "../server.js";
import { answerMemoryRequests } from "./flood.js";
import { TestDefinition } from "./support.js";

const server = createServer().add(TestDefinition, { echo: async (request) => request });
await server.listen(process.argv[2]);
answerMemoryRequests();
process.send?.("listening");
