import type {
  AdjustmentBuilder,
  Container,
  ContainerAdjustment,
  ContainerEviction,
  ContainerUpdate,
  DeepPartial,
  EventMask,
  LinuxResources,
  PodSandbox,
  UpdateBuilder,
  ValidateContainerAdjustmentRequest,
} from "@nri-ts/api";
import type { Identity } from "./identity.js";
import type { Logger } from "./logger.js";

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** What every handler gets besides the request. */
export interface HandlerContext {
  /**
   * Fires when the request's deadline (the runtime's request timeout, 2 s by
   * default) passes or the connection to the runtime closes. Pass it on to
   * anything slow you await.
   */
  readonly signal: AbortSignal;
  /** The stub's logger, with the plugin's name bound. */
  readonly logger: Logger;
  /** The stub running the plugin, e.g. for `updateContainers`. */
  readonly stub: StubHandle;
}

/** What the runtime said about itself in Configure. */
export interface RuntimeInfo {
  name: string;
  version: string;
  /** Its NRI version; inferred from name and version when it did not say, "unknown" when that failed. */
  nriVersion: string;
}

/**
 * The stub running a plugin, as its handlers see it (`ctx.stub`): the
 * {@link Stub} itself, through what a handler may use of it.
 */
export interface StubHandle {
  /** `<index>-<name>`, as the runtime knows it. */
  readonly name: string;
  /** The index and base name it registers with. */
  readonly identity: Identity;
  /** The events subscribed to: those `configure` chose, else the handled ones. */
  readonly events: EventMask;
  /** The runtime, once it has configured the plugin. */
  readonly runtime: RuntimeInfo | undefined;
  /** The runtime's registration timeout (its own once configured, before that the default). */
  readonly registrationTimeoutMs: number;
  /** The runtime's request timeout (its own once configured, before that the default). */
  readonly requestTimeoutMs: number;
  /** Whether it is connected and configured. */
  readonly connected: boolean;
  /**
   * Asks the runtime to update containers (and to evict some); resolves
   * with the updates that failed. See {@link Stub.updateContainers}.
   */
  updateContainers(
    updates: readonly UpdateInput[],
    evictions?: readonly EvictionInput[],
    options?: { signal?: AbortSignal },
  ): Promise<ContainerUpdate[]>;
  /** Closes the connection to the runtime. See {@link Stub.stop}. */
  stop(): Promise<void>;
}

/** What the runtime tells the plugin in Configure. */
export interface ConfigureInput {
  /** The plugin's configuration: the file content for runtime-launched plugins, "" otherwise. */
  config: string;
  runtimeName: string;
  runtimeVersion: string;
  /** The runtime's NRI version (inferred from its name and version when it did not say). */
  runtimeNriVersion: string;
  registrationTimeoutMs: number;
  requestTimeoutMs: number;
}

/** A container adjustment: a plain (partial) message or an `AdjustmentBuilder`. */
export type AdjustmentInput = DeepPartial<ContainerAdjustment> | AdjustmentBuilder;
/** A container update: a plain (partial) message or an `UpdateBuilder`. */
export type UpdateInput = DeepPartial<ContainerUpdate> | UpdateBuilder;
/** A container eviction request. */
export type EvictionInput = DeepPartial<ContainerEviction>;

/** Makes each of the keys `K` an error to set (only `undefined` fits). */
type Without<K extends PropertyKey> = { [P in K]?: never };

/** The long form of a createContainer answer: an adjustment of the new container, updates and evictions of others. */
export interface CreateContainerReply {
  adjust?: AdjustmentInput;
  update?: readonly UpdateInput[];
  evict?: readonly EvictionInput[];
}

/**
 * What createContainer may answer: nothing, an adjustment, or the
 * `{adjust, update, evict}` form. The two forms do not mix: an adjustment
 * with an `update` key, or `{adjust}` with an adjustment's `annotations`, is
 * a type error here, and a request error at run time (as is any key that
 * neither form has).
 */
export type CreateContainerResult =
  | void
  | (AdjustmentInput & Without<keyof CreateContainerReply>)
  | (CreateContainerReply & Without<keyof ContainerAdjustment>);

/** The long form of an updateContainer answer. */
export interface UpdateContainerReply {
  update?: readonly UpdateInput[];
  evict?: readonly EvictionInput[];
}

/** What updateContainer may answer: nothing, a list of updates, or `{update, evict}` (not a single update). */
export type UpdateContainerResult =
  | void
  | readonly UpdateInput[]
  | (UpdateContainerReply & Without<keyof ContainerUpdate>);

/**
 * An NRI plugin: any subset of these handlers. Each lifecycle handler
 * present subscribes the plugin to its event (unless `configure` narrows the
 * subscription); at least one is required. A handler that throws fails that
 * request only: the runtime gets an error status (Unknown with the message,
 * or the code of a thrown nice-grpc `ServerError`) and the plugin keeps
 * serving. Handlers may run concurrently.
 */
export interface Plugin {
  /**
   * Called once per connection, before any event. Return an event mask to
   * subscribe to fewer events than the handlers imply; nothing (or 0) keeps
   * them all. Asking for an event without a handler is an error.
   */
  configure?(input: ConfigureInput, ctx: HandlerContext): Awaitable<EventMask | void>;
  /** The runtime's pods and containers when the plugin connects; return updates for them. */
  synchronize?(
    pods: PodSandbox[],
    containers: Container[],
    ctx: HandlerContext,
  ): Awaitable<readonly UpdateInput[] | void>;
  /** The runtime is shutting down (the Go runtime never sends it). */
  shutdown?(ctx: HandlerContext): Awaitable<void>;

  runPodSandbox?(pod: PodSandbox, ctx: HandlerContext): Awaitable<void>;
  updatePodSandbox?(
    pod: PodSandbox,
    overheadResources: LinuxResources | undefined,
    resources: LinuxResources | undefined,
    ctx: HandlerContext,
  ): Awaitable<void>;
  postUpdatePodSandbox?(pod: PodSandbox, ctx: HandlerContext): Awaitable<void>;
  stopPodSandbox?(pod: PodSandbox, ctx: HandlerContext): Awaitable<void>;
  removePodSandbox?(pod: PodSandbox, ctx: HandlerContext): Awaitable<void>;

  /** Adjust the container being created; update or evict others. */
  createContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<CreateContainerResult>;
  postCreateContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<void>;
  startContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<void>;
  postStartContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<void>;
  /**
   * The runtime is about to update a container's resources. An update
   * returned for this container replaces the runtime's; others are applied too.
   */
  updateContainer?(
    pod: PodSandbox,
    container: Container,
    resources: LinuxResources | undefined,
    ctx: HandlerContext,
  ): Awaitable<UpdateContainerResult>;
  postUpdateContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<void>;
  /** The container is stopping; return updates for other containers. */
  stopContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<readonly UpdateInput[] | void>;
  removeContainer?(pod: PodSandbox, container: Container, ctx: HandlerContext): Awaitable<void>;

  /**
   * Validate the merged result of all plugins' adjustments for a new
   * container. Throw to reject it: the error's message becomes the reason.
   */
  validateContainerAdjustment?(request: ValidateContainerAdjustmentRequest, ctx: HandlerContext): Awaitable<void>;
}
