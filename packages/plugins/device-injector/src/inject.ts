/**
 * The adjustment a container gets from its pod's annotations, built in the
 * Go plugin's order (devices, CDI devices, mounts, I/O priority, scheduler,
 * network devices, sysctls, memory policy); the first bad annotation fails
 * the container, with the Go plugin's error.
 */
import {
  AdjustmentBuilder,
  type ContainerAdjustment,
  IOPrioClass,
  LinuxContainerAdjustment,
  LinuxSchedulerFlag,
  LinuxSchedulerPolicy,
  MpolFlag,
  MpolMode,
} from "@nri-ts/api";
import { goQuote } from "@nri-ts/common";
import type { Logger } from "@nri-ts/stub";
import {
  DeviceInjectorError,
  type IoPriority,
  type MemoryPolicy,
  parseCdiDevices,
  parseDevices,
  parseIoPriority,
  parseMemoryPolicy,
  parseMounts,
  parseNetDevices,
  parseScheduler,
  parseSysctl,
  type Scheduler,
} from "./parse.js";

/** Where deviceAdjustment says what it injects and skips. */
export type Log = Pick<Logger, "info" | "warn" | "error">;

const quiet: Log = { info: () => {}, warn: () => {}, error: () => {} };

/** An enum's value by its proto name; undefined for names it does not have. */
function byName<E extends Record<string, string | number>>(values: E, name: string): E[keyof E] | undefined {
  const value = Object.hasOwn(values, name) ? values[name as keyof E] : undefined;
  return typeof value === "number" && value >= 0 ? value : undefined;
}

function ioPriorityText(p: IoPriority): string {
  return `<I/O priority class ${p.class}:${p.priority}>`;
}

function schedulerText(s: Scheduler): string {
  let text = `<scheduler policy=${s.policy}`;
  if (s.nice !== 0) text += `, nice=${s.nice}`;
  if (s.priority !== 0) text += `, priority=${s.priority}`;
  if (s.runtime !== 0n) text += `, runtime=${s.runtime}, deadline=${s.deadline}, period=${s.period}`;
  if (s.flags.length > 0) text += `, flags=[${s.flags.join(" ")}]`;
  return `${text}>`;
}

function memoryPolicyText(p: MemoryPolicy): string {
  let text = `<memory policy mode=${p.mode}`;
  if (p.nodes !== "") text += `, nodes=${p.nodes}`;
  if (p.flags.length > 0) text += `, flags=[${p.flags.join(" ")}]`;
  return `${text}>`;
}

/**
 * The adjustment for `container` of `pod`, logging each change as the Go
 * plugin does (`<pod>/<container>: injected device "/dev/x"...`).
 * @throws DeviceInjectorError for a bad annotation
 */
export function deviceAdjustment(
  pod: { name: string; annotations: Readonly<Record<string, string>> },
  container: { name: string },
  log: Log = quiet,
): ContainerAdjustment {
  const at = `${pod.name}/${container.name}`;
  const annotations = pod.annotations;
  const adjust = new AdjustmentBuilder();
  /** The Go plugin sends an empty Linux part when it sets an I/O priority of nil. */
  let emptyLinux = false;

  for (const d of parseDevices(container.name, annotations)) {
    adjust.addDevice({
      path: d.path,
      type: d.type,
      major: d.major,
      minor: d.minor,
      ...(d.file_mode !== 0 && { fileMode: d.file_mode }),
      ...(d.uid !== 0 && { uid: d.uid }),
      ...(d.gid !== 0 && { gid: d.gid }),
    });
    log.info(`${at}: injected device ${goQuote(d.path)}...`);
  }

  for (const name of parseCdiDevices(container.name, annotations)) {
    adjust.addCdiDevice(name);
    log.info(`${at}: injected CDI device ${goQuote(name)}...`);
  }

  for (const m of parseMounts(container.name, annotations)) {
    adjust.addMount({ source: m.source, destination: m.destination, type: m.type, options: m.options });
    log.info(`${at}: injected mount ${goQuote(m.source)} -> ${goQuote(m.destination)}...`);
  }

  const ioPriority = parseIoPriority(container.name, annotations);
  if (ioPriority !== undefined) {
    const ioClass = byName(IOPrioClass, ioPriority.class);
    if (ioClass === undefined) {
      // the Go plugin says so, and then sets no I/O priority at all
      log.warn(`unknown I/O priority class ${goQuote(ioPriority.class)}, using IOPRIO_CLASS_BE`);
      emptyLinux = true;
    } else {
      adjust.setIoPriority({ class: ioClass, priority: ioPriority.priority });
      log.info(`${at}: injected I/O priority ${ioPriorityText(ioPriority)}...`);
    }
  }

  const scheduler = parseScheduler(container.name, annotations);
  if (scheduler !== undefined) {
    // unknown names become the enums' zero values, as in Go
    adjust.setScheduler({
      policy: byName(LinuxSchedulerPolicy, scheduler.policy) ?? LinuxSchedulerPolicy.SCHED_NONE,
      nice: scheduler.nice,
      priority: scheduler.priority,
      flags: scheduler.flags.map((f) => byName(LinuxSchedulerFlag, f) ?? LinuxSchedulerFlag.SCHED_FLAG_RESET_ON_FORK),
      runtime: scheduler.runtime,
      deadline: scheduler.deadline,
      period: scheduler.period,
    });
    log.info(`${at}: adjusted scheduling attributes to ${schedulerText(scheduler)}...`);
  }

  for (const d of parseNetDevices(container.name, annotations)) {
    adjust.addNetDevice(d.hostIf, { name: d.name });
    log.info(`${at}: injected network device ${goQuote(d.hostIf)} -> ${goQuote(d.name)}...`);
  }

  for (const [key, value] of parseSysctl(container.name, annotations)) {
    adjust.setSysctl(key, value);
    log.info(`${at}: adjusted sysctl ${key}=${value}...`);
  }

  let policy: MemoryPolicy | undefined;
  try {
    policy = parseMemoryPolicy(container.name, annotations);
  } catch (error) {
    log.error(`${at}: invalid memory policy annotation: ${(error as Error).message}`);
    throw error;
  }
  if (policy !== undefined) {
    const mode = byName(MpolMode, policy.mode);
    const unknownFlag = policy.flags.find((f) => byName(MpolFlag, f) === undefined);
    const problem =
      mode === undefined
        ? `invalid memory policy mode ${goQuote(policy.mode)}`
        : unknownFlag !== undefined
          ? `invalid memory policy flag ${goQuote(unknownFlag)}`
          : undefined;
    if (problem !== undefined || mode === undefined) {
      log.error(`${at}: invalid memory policy annotation: ${problem}`);
      throw new DeviceInjectorError(`invalid memory policy: ${problem}`);
    }
    adjust.setMemoryPolicy(mode, policy.nodes, ...policy.flags.map((f) => byName(MpolFlag, f) as MpolFlag));
    log.info(`${at}: adjusted memory policy to ${memoryPolicyText(policy)}...`);
  }

  const adjustment = adjust.build();
  if (emptyLinux) adjustment.linux ??= LinuxContainerAdjustment.fromPartial({});
  return adjustment;
}
