import { ClientError, Metadata, ServerError, Status } from "nice-grpc-common";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { deferred, socketPair, TestDefinition } from "./testing/support.js";
import { Channel } from "./channel.js";
import { createClient, createClientFactory } from "./client.js";
import { MAX_DATA_LENGTH } from "./frame.js";
import type { KeyValue, StringList } from "./gen/ttrpc/request.js";
import { createServer, type Server } from "./server.js";

let servers: Server[] = [];
afterEach(() => {
  for (const server of servers) server.forceShutdown();
  servers = [];
});

/** A server with the whole test service, and a channel to it. */
async function setUp() {
  const server = createServer().add(TestDefinition, {
    echo: async (request) => request,
    fail: async (request) => {
      throw new ServerError(Number(request.key), request.value);
    },
    metadata: async (_request, { metadata }) => ({
      list: [...metadata].map(([key, values]) => `${key}=${values.join(",")}`),
    }),
    collect: async (requests) => {
      const list: string[] = [];
      for await (const request of requests) list.push(request.key);
      return { list };
    },
    spread: async function* (request) {
      for (let i = 0; i < Number(request.key); i++) yield { key: String(i), value: request.value };
    },
    chat: async function* (requests) {
      for await (const request of requests) yield request;
    },
  });
  servers.push(server);
  const [client, end] = await socketPair();
  void server.serve(end);
  return new Channel(client);
}

async function* messages(...keys: string[]) {
  for (const key of keys) yield { key };
}

describe("createClient", () => {
  it("types each method from the definition", async () => {
    const client = createClient(TestDefinition, await setUp());
    expectTypeOf(client.echo).returns.toEqualTypeOf<Promise<KeyValue>>();
    expectTypeOf(client.collect).returns.toEqualTypeOf<Promise<StringList>>();
    expectTypeOf(client.spread).returns.toEqualTypeOf<AsyncIterable<KeyValue>>();
    expectTypeOf(client.chat).parameter(0).toEqualTypeOf<AsyncIterable<{ key?: string; value?: string }>>();
  });

  it("calls unary methods, partial requests filled with defaults", async () => {
    const client = createClient(TestDefinition, await setUp());
    expect(await client.echo({ key: "a" })).toEqual({ key: "a", value: "" });
    expect(await client.echo({})).toEqual({ key: "", value: "" });
  });

  it("raises the server's status as a ClientError", async () => {
    const client = createClient(TestDefinition, await setUp());
    const error = await client.fail({ key: String(Status.FAILED_PRECONDITION), value: "not yet" }).catch((e) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      path: "/nrits.test.Test/Fail",
      code: Status.FAILED_PRECONDITION,
      details: "not yet",
    });
  });

  it("runs many calls at once on one connection", async () => {
    const client = createClient(TestDefinition, await setUp());
    const keys = Array.from({ length: 64 }, (_, i) => `call ${i}`);
    const replies = await Promise.all(keys.map((key) => client.echo({ key })));
    expect(replies.map((r) => r.key)).toEqual(keys);
  });

  it("carries payloads up to the limit, and refuses bigger ones for that call only", async () => {
    const client = createClient(TestDefinition, await setUp());
    const large = "x".repeat(MAX_DATA_LENGTH - 100);
    expect((await client.echo({ value: large })).value.length).toBe(large.length);
    const error = await client.echo({ value: "x".repeat(MAX_DATA_LENGTH) }).catch((e) => e);
    expect(error).toMatchObject({ code: Status.RESOURCE_EXHAUSTED });
    expect(await client.echo({ key: "after" })).toEqual({ key: "after", value: "" });
  });

  it("applies default options, per method or for all, under the call's own", async () => {
    const client = createClient(TestDefinition, await setUp(), {
      "*": { metadata: Metadata({ who: "default" }) },
      echo: { deadline: Date.now() + 60_000 },
    });
    expect((await client.metadata({})).list).toEqual(["who=default"]);
    expect((await client.metadata({}, { metadata: Metadata({ who: "me" }) })).list).toEqual(["who=me"]);
  });

  it("streams requests, responses, or both", async () => {
    const client = createClient(TestDefinition, await setUp());
    expect(await client.collect(messages("a", "b", "c"))).toEqual({ list: ["a", "b", "c"] });
    const spread: KeyValue[] = [];
    for await (const response of client.spread({ key: "3", value: "v" })) spread.push(response);
    expect(spread).toEqual([
      { key: "0", value: "v" },
      { key: "1", value: "v" },
      { key: "2", value: "v" },
    ]);
    const chat: string[] = [];
    for await (const response of client.chat(messages("x", "y"))) chat.push(response.key);
    expect(chat).toEqual(["x", "y"]);
  });

  it("fails a client stream whose requests throw, and tells the server that no more follow", async () => {
    const client = createClient(TestDefinition, await setUp());
    async function* broken() {
      yield { key: "a" };
      throw new Error("source failed");
    }
    const error = await client.collect(broken()).catch((e) => e);
    expect(error).toMatchObject({ code: Status.INTERNAL, details: "source failed" });
    expect(await client.echo({ key: "still fine" })).toEqual({ key: "still fine", value: "" });
  });

  it("lets a caller stop reading a stream early", async () => {
    const client = createClient(TestDefinition, await setUp());
    for await (const response of client.spread({ key: "100" })) {
      expect(response.key).toBe("0");
      break;
    }
    expect(await client.echo({ key: "next" })).toEqual({ key: "next", value: "" });
  });
});

describe("client middleware", () => {
  it("wraps every call, the last added outermost as in nice-grpc, with its own options", async () => {
    const order: string[] = [];
    const factory = createClientFactory()
      .use<{ tag: string }>(async function* inner(call, options) {
        order.push(`inner ${options.tag}`);
        return yield* call.next(call.request, { ...options, metadata: Metadata({ tag: options.tag ?? "none" }) });
      })
      .use(async function* outer(call, options) {
        order.push(`outer ${call.method.path}`);
        return yield* call.next(call.request, options);
      });
    const client = factory.create(TestDefinition, await setUp());
    expect((await client.metadata({}, { tag: "t1" })).list).toEqual(["tag=t1"]);
    const spread: string[] = [];
    for await (const response of client.spread({ key: "2" }, { tag: "t2" })) spread.push(response.key);
    expect(spread).toEqual(["0", "1"]);
    expect(order).toEqual(["outer /nrits.test.Test/Metadata", "inner t1", "outer /nrits.test.Test/Spread", "inner t2"]);
  });

  it("sees failures as ClientErrors", async () => {
    const seen = deferred<unknown>();
    const client = createClientFactory()
      .use(async function* (call, options) {
        try {
          return yield* call.next(call.request, options);
        } catch (error) {
          seen.resolve(error);
          throw error;
        }
      })
      .create(TestDefinition, await setUp());
    await expect(client.fail({ key: "5", value: "gone" })).rejects.toThrow("NOT_FOUND: gone");
    expect(await seen.promise).toMatchObject({ code: Status.NOT_FOUND });
  });
});
