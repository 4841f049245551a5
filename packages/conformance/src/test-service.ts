/*
 * The ttrpc test service of the conformance tests, on our side: its
 * definition, our implementation (behaving as the Go peers' internal/testservice does)
 * and a client of it with one outcome shape for our client and Go's.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Channel,
  createClient,
  KeyValue,
  MAX_DATA_LENGTH,
  type MessageCodec,
  Request,
  Response,
  type ServiceImplementation,
  StringList,
} from "@nri-ts/ttrpc";
import { ClientError, Metadata, ServerError, Status } from "nice-grpc-common";

export const SERVICE = "nrits.conformance.Test";

/** A method taking KeyValue requests; codecs typed as `MessageCodec` so that the definition's type can be named. */
const method = <Res, RequestStream extends boolean, ResponseStream extends boolean>(
  name: string,
  responseType: MessageCodec<Res>,
  requestStream: RequestStream,
  responseStream: ResponseStream,
) => ({
  name,
  requestType: KeyValue as MessageCodec<KeyValue>,
  responseType,
  requestStream,
  responseStream,
  options: {},
});
const unary = <Res>(name: string, responseType: MessageCodec<Res>) => method(name, responseType, false, false);

/** The test service of internal/testservice (served by cmd/ttrpc-peer and cmd/mux-peer), as a ts-proto style definition. */
export const TestDefinition = {
  name: "Test",
  fullName: SERVICE,
  methods: {
    echo: unary("Echo", KeyValue),
    generate: unary("Generate", KeyValue),
    fail: unary("Fail", KeyValue),
    deadline: unary("Deadline", KeyValue),
    metadata: unary("Metadata", StringList),
    sleep: unary("Sleep", KeyValue),
    collect: method("Collect", StringList, true, false),
    spread: method("Spread", KeyValue, false, true),
    chat: method("Chat", KeyValue, true, true),
  },
} as const;

/** What the TypeScript server saw, for checks that only the server side can make. */
export const observed = { sleepsStarted: 0, sleepAborts: [] as unknown[] };

/** Echo requests with this key wait until BARRIER of them are in flight at once. */
export const BARRIER = 64;
let barrier: { waiting: number; release: () => void; done: Promise<void> } | undefined;

/** The test service in TypeScript, behaving as internal/testservice does. */
export const implementation: ServiceImplementation<typeof TestDefinition> = {
  async echo(request) {
    if (request.key === "barrier") {
      if (barrier === undefined) {
        let release!: () => void;
        const done = new Promise<void>((resolve) => (release = resolve));
        barrier = { waiting: 0, release, done };
      }
      const current = barrier;
      if (++current.waiting === BARRIER) {
        barrier = undefined;
        current.release();
      }
      await current.done;
    }
    return request;
  },
  async generate(request) {
    return { value: "x".repeat(Number(request.key)) };
  },
  async fail(request) {
    const code = Number(request.key);
    if (code === 0) return {};
    throw new ServerError(code, request.value);
  },
  async deadline(_request, { deadline }) {
    if (deadline === undefined) return { key: "none" };
    return { key: "set", value: String((deadline.getTime() - Date.now()) * 1_000_000) };
  },
  async metadata(_request, { metadata }) {
    const list: string[] = [];
    for (const [key, values] of [...metadata].sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const value of values) list.push(`${key}=${String(value)}`);
    }
    return { list };
  },
  async sleep(request, { signal }) {
    observed.sleepsStarted++;
    try {
      await sleep(Number(request.key), undefined, { signal });
    } catch (error) {
      observed.sleepAborts.push(signal.reason);
      throw error;
    }
    return { key: "slept" };
  },
  async collect(requests) {
    const list: string[] = [];
    for await (const request of requests) list.push(request.key);
    return { list };
  },
  async *spread(request) {
    for (let i = 0; i < Number(request.key); i++) yield { key: String(i), value: request.value };
    if (request.value === "fail") throw new ServerError(Status.ABORTED, "spread failed");
  },
  async *chat(requests) {
    for await (const request of requests) yield request;
  },
};

/** The outcome of one call, the same shape from either client. */
export interface Outcome {
  code: number;
  message: string;
  key?: string;
  /** The value, when at most 256 bytes long. */
  value?: string;
  valueLength?: number;
  list?: string[];
  messages?: Array<{ key: string; value: string }>;
}

/** What a test asks a client to do; `fill` sends that many "x" as the value. */
export interface CallSpec {
  key?: string;
  value?: string;
  fill?: number;
  timeoutMs?: number;
  metadata?: Array<[string, string]>;
}

/** A client of the test service's unary methods. */
export interface UnaryTestClient {
  unary(method: string, spec?: CallSpec): Promise<Outcome>;
}

/** A client of the whole test service: ours, or Go's driven through cmd/ttrpc-peer. */
export interface TestClient extends UnaryTestClient {
  collect(keys: string[]): Promise<Outcome>;
  spread(key: string, value: string): Promise<Outcome>;
  chat(keys: string[]): Promise<Outcome>;
  close(): Promise<void>;
}

/** Our client of the test service over `channel`. */
export function channelClient(channel: Channel): TestClient {
  const client = createClient(TestDefinition, channel);
  const attempt = async (call: () => Promise<Partial<Outcome>>): Promise<Outcome> => {
    try {
      return { code: 0, message: "", ...(await call()) };
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      return { code: error.code, message: error.details };
    }
  };
  const keyValue = (response: KeyValue) => ({
    key: response.key,
    value: response.value.length <= 256 ? response.value : "",
    valueLength: response.value.length,
  });
  async function* keyValues(keys: string[]) {
    for (const key of keys) yield { key };
  }
  return {
    unary: (method, spec = {}) =>
      attempt(async () => {
        const request = { key: spec.key ?? "", value: spec.fill ? "x".repeat(spec.fill) : (spec.value ?? "") };
        const options = {
          deadline: spec.timeoutMs ? Date.now() + spec.timeoutMs : undefined,
          metadata: spec.metadata ? toMetadata(spec.metadata) : undefined,
        };
        if (method === "Metadata") return { list: (await client.metadata(request, options)).list };
        const call = client[(method[0].toLowerCase() + method.slice(1)) as "echo"];
        return keyValue(await call(request, options));
      }),
    collect: (keys) => attempt(async () => ({ list: (await client.collect(keyValues(keys))).list })),
    spread: async (key, value) => {
      const messages: Array<{ key: string; value: string }> = [];
      const outcome = await attempt(async () => {
        for await (const message of client.spread({ key, value })) messages.push(message);
        return {};
      });
      return { ...outcome, messages };
    },
    chat: async (keys) => {
      const messages: Array<{ key: string; value: string }> = [];
      const outcome = await attempt(async () => {
        for await (const message of client.chat(keyValues(keys))) messages.push(message);
        return {};
      });
      return { ...outcome, messages };
    },
    close: async () => channel.close(),
  };
}

function toMetadata(pairs: Array<[string, string]>): Metadata {
  const metadata = Metadata();
  for (const [key, value] of pairs) metadata.append(key, value);
  return metadata;
}

/** Request data for Echo with a value of `fill` bytes: the size Go's client and ours both send. */
export function echoRequestLength(fill: number): number {
  const payload = Buffer.from(KeyValue.encode({ key: "", value: "x".repeat(fill) }).finish());
  return Request.encode(Request.fromPartial({ service: SERVICE, method: "Echo", payload })).finish().length;
}

/** Response data for Generate of `fill` bytes. */
export function generateResponseLength(fill: number): number {
  const payload = Buffer.from(KeyValue.encode({ key: "", value: "x".repeat(fill) }).finish());
  return Response.encode(Response.fromPartial({ payload })).finish().length;
}

/** The largest fill whose data (as `length` measures it) is at most `limit` bytes, 4 MiB unless given. */
export function largestFill(length: (fill: number) => number, limit = MAX_DATA_LENGTH): number {
  // the data is the fill plus an overhead that grows by a few bytes at most
  // as length prefixes get longer: start just below and step
  let fill = Math.max(0, limit - (length(1) - 1) - 8);
  while (fill > 0 && length(fill) > limit) fill--;
  while (length(fill + 1) <= limit) fill++;
  return fill;
}
