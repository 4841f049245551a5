import type { ContainerAdjustment, DeepPartial, ValidateContainerAdjustmentRequest } from "@nri-ts/api";
import {
  Container,
  CreateContainerRequest,
  CreateContainerResponse,
  Field,
  LinuxSeccomp,
  PodSandbox,
  SecurityProfile_ProfileType,
} from "@nri-ts/api";
import { describe, expect, it } from "vitest";
import { CreateContainerResult } from "../create-container-result.js";
import {
  AnnotationValueError,
  checkDefaultValidation,
  DefaultValidationError,
  defaultValidator,
} from "./default-validator.js";
import type { DefaultValidatorConfig } from "./default-validator-config.js";
import { defaultValidatorConfig } from "./default-validator-config.js";
import { Ownership } from "../merge/owners.js";
import { firstValidationError, validationVerdict } from "./validation.js";

const config = (settings: Partial<DefaultValidatorConfig>): DefaultValidatorConfig => ({
  ...defaultValidatorConfig(),
  enable: true,
  ...settings,
});

const POD = { id: "pod0", name: "pod0", uid: "uid0", namespace: "default" };
const SECCOMP = LinuxSeccomp.fromPartial({
  defaultAction: "SCMP_ACT_ALLOW",
  listenerPath: "/run/meshuggah-rocks.sock",
});

interface Plugin {
  name: string;
  index: string;
  adjust?: (container: Container) => DeepPartial<ContainerAdjustment>;
}

/**
 * One CreateContainer with the default validator (00-default-validator,
 * prepended) and the given plugins (validators that accept unless they
 * say otherwise), as the adaptation drives the merge engine: the first
 * failure, or the reply.
 */
async function createWith(
  settings: Partial<DefaultValidatorConfig>,
  plugins: Plugin[],
  container: DeepPartial<Container>,
  pod: DeepPartial<PodSandbox> = POD,
): Promise<{ error?: string; adjust?: ContainerAdjustment }> {
  const validator = defaultValidator(config(settings));
  if (validator === undefined) throw new Error("default validator should be enabled");
  const result = new CreateContainerResult(CreateContainerRequest.fromPartial({ pod, container }));
  const validation = result.startValidation();
  validation.addPlugin(validator.name, validator.index);
  for (const plugin of plugins) {
    validation.addPlugin(plugin.name, plugin.index);
    const adjust = plugin.adjust?.(result.request.container);
    result.apply(
      adjust === undefined ? undefined : CreateContainerResponse.fromPartial({ adjust }),
      `${plugin.index}-${plugin.name}`,
    );
  }
  const response = result.response();
  const request = validation.build(response, result.owners.message);
  const error = await firstValidationError([
    (async () => {
      const rejected = validationVerdict(validator.validate(request), `${validator.index}-${validator.name}`);
      if (rejected) throw rejected;
    })(),
    ...plugins.map(async () => undefined),
  ]);
  return error ? { error: error.message } : { adjust: response.adjust };
}

const REJECTED = 'validator "00-default-validator" rejected container adjustment, reason: ';

describe("default validator: OCI hooks (suite #16)", () => {
  const plugins: Plugin[] = [
    {
      name: "foo",
      index: "00",
      adjust: (c) =>
        c.name === "ctr1" ? { hooks: { prestart: [{ path: "/bin/sh", args: ["/bin/sh", "-c", "true"] }] } } : {},
    },
    { name: "validator1", index: "10" },
    { name: "validator2", index: "20" },
  ];

  it("lets a container without injected hooks through", async () => {
    const { error, adjust } = await createWith({ rejectOCIHookAdjustment: true }, plugins, {
      id: "ctr0",
      name: "ctr0",
    });
    expect(error).toBeUndefined();
    expect(adjust).toBeDefined();
  });

  it("rejects hook injection", async () => {
    expect(await createWith({ rejectOCIHookAdjustment: true }, plugins, { id: "ctr1", name: "ctr1" })).toStrictEqual({
      error: `${REJECTED}validation error: plugin "00-foo" attempted restricted OCI hook injection`,
    });
  });

  it('names several injectors as plugins "a,b"', async () => {
    const hook = () => ({ hooks: { poststop: [{ path: "/x" }] } });
    const { error } = await createWith(
      { rejectOCIHookAdjustment: true },
      [
        { name: "a", index: "10", adjust: hook },
        { name: "b", index: "20", adjust: hook },
      ],
      { id: "ctr0", name: "ctr0" },
    );
    expect(error).toBe(`${REJECTED}validation error: plugins "10-a,20-b" attempted restricted OCI hook injection`);
  });

  it("allows hooks when the switch is off", async () => {
    expect((await createWith({}, plugins, { id: "ctr1", name: "ctr1" })).error).toBeUndefined();
  });
});

describe("default validator: seccomp (suite #17-#22)", () => {
  const plugins: Plugin[] = [
    { name: "foo", index: "00", adjust: (c) => (c.name === "ctr1" ? { linux: { seccompPolicy: SECCOMP } } : {}) },
    { name: "validator1", index: "10" },
    { name: "validator2", index: "20" },
  ];
  const ctr1 = (profileType?: SecurityProfile_ProfileType) => ({
    id: "ctr1",
    name: "ctr1",
    linux: profileType === undefined ? undefined : { seccompProfile: { profileType } },
  });

  it.each([
    [
      SecurityProfile_ProfileType.RUNTIME_DEFAULT,
      { rejectRuntimeDefaultSeccompAdjustment: true },
      "plugin 00-foo attempted restricted runtime default seccomp policy adjustment",
    ],
    [
      SecurityProfile_ProfileType.LOCALHOST,
      { rejectCustomSeccompAdjustment: true },
      "plugin 00-foo attempted restricted  custom seccomp policy adjustment",
    ],
    [
      SecurityProfile_ProfileType.UNCONFINED,
      { rejectUnconfinedSeccompAdjustment: true },
      "plugin 00-foo attempted restricted  unconfined seccomp policy adjustment",
    ],
    [
      undefined,
      { rejectUnconfinedSeccompAdjustment: true },
      "plugin 00-foo attempted restricted  unconfined seccomp policy adjustment",
    ],
  ])("rejects an override of profile %s when its switch is on", async (profile, settings, reason) => {
    expect((await createWith(settings, plugins, { id: "ctr0", name: "ctr0" })).error).toBeUndefined();
    expect((await createWith(settings, plugins, ctr1(profile))).error).toBe(`${REJECTED}validation error: ${reason}`);
  });

  it.each([
    SecurityProfile_ProfileType.RUNTIME_DEFAULT,
    SecurityProfile_ProfileType.LOCALHOST,
    SecurityProfile_ProfileType.UNCONFINED,
  ])("allows an override of profile %s when its switch is off", async (profile) => {
    const everyOtherSwitch = {
      rejectRuntimeDefaultSeccompAdjustment: profile !== SecurityProfile_ProfileType.RUNTIME_DEFAULT,
      rejectCustomSeccompAdjustment: profile !== SecurityProfile_ProfileType.LOCALHOST,
      rejectUnconfinedSeccompAdjustment: profile !== SecurityProfile_ProfileType.UNCONFINED,
    };
    const { error, adjust } = await createWith(everyOtherSwitch, plugins, ctr1(profile));
    expect(error).toBeUndefined();
    expect(adjust?.linux?.seccompPolicy).toStrictEqual(SECCOMP);
  });
});

describe("default validator: namespaces (suite #23)", () => {
  const plugins: Plugin[] = [
    {
      name: "foo",
      index: "00",
      adjust: (c) => (c.name === "ctr1" ? { linux: { namespaces: [{ type: "cgroup", path: "/" }] } } : {}),
    },
    { name: "validator1", index: "10" },
    { name: "validator2", index: "20" },
  ];

  it("rejects namespace adjustment and lists owner and type", async () => {
    expect(
      (await createWith({ rejectNamespaceAdjustment: true }, plugins, { id: "ctr0", name: "ctr0" })).error,
    ).toBeUndefined();
    expect((await createWith({ rejectNamespaceAdjustment: true }, plugins, { id: "ctr1", name: "ctr1" })).error).toBe(
      `${REJECTED}validation error: attempted restricted namespace adjustment by plugin(s) "00-foo" (namespace "cgroup")`,
    );
  });

  it("counts removals and lists every pair", async () => {
    const { error } = await createWith(
      { rejectNamespaceAdjustment: true },
      [
        {
          name: "foo",
          index: "00",
          adjust: () => ({ linux: { namespaces: [{ type: "-network" }, { type: "ipc" }] } }),
        },
      ],
      { id: "ctr0", name: "ctr0" },
    );
    expect(error).toBe(
      `${REJECTED}validation error: attempted restricted namespace adjustment by plugin(s) "00-foo" (namespace "network"), "00-foo" (namespace "ipc")`,
    );
  });
});

describe("default validator: required plugins (suite #24-#27)", () => {
  const settings = {
    requiredPlugins: ["foo", "bar"],
    tolerateMissingPluginsAnnotation: "tolerate-missing-plugins.noderesource.dev",
  };
  const ctr0 = { id: "ctr0", name: "ctr0" };

  it("rejects when a required plugin is missing", async () => {
    expect((await createWith(settings, [{ name: "foo", index: "00" }], ctr0)).error).toBe(
      `${REJECTED}validation error: required plugin "bar" not present`,
    );
  });

  it("lists several missing plugins", async () => {
    expect((await createWith(settings, [], ctr0)).error).toBe(
      `${REJECTED}validation error: required plugins "foo,bar" not present`,
    );
  });

  it("lets a tolerating pod through", async () => {
    const pod = { ...POD, annotations: { "tolerate-missing-plugins.noderesource.dev/container.ctr0": "true" } };
    expect((await createWith(settings, [{ name: "foo", index: "00" }], ctr0, pod)).error).toBeUndefined();
  });

  it("matches required plugins by base name", async () => {
    const plugins = [
      { name: "foo", index: "00" },
      { name: "bar", index: "10" },
    ];
    expect((await createWith(settings, plugins, ctr0)).error).toBeUndefined();
  });

  it("requires annotated plugins until they connect", async () => {
    const pod = { ...POD, annotations: { "required-plugins.noderesource.dev/container.ctr0": '[ "xyzzy" ]' } };
    const plugins = [
      { name: "foo", index: "00" },
      { name: "bar", index: "10" },
    ];
    expect((await createWith(settings, plugins, ctr0, pod)).error).toBe(
      `${REJECTED}validation error: required plugin "xyzzy" not present`,
    );
    expect((await createWith(settings, [...plugins, { name: "xyzzy", index: "20" }], ctr0, pod)).error).toBeUndefined();
  });
});

function validationRequest(
  pod: DeepPartial<PodSandbox>,
  plugins: Array<{ name: string; index: string }> = [],
  extra: Partial<ValidateContainerAdjustmentRequest> = {},
): ValidateContainerAdjustmentRequest {
  return {
    pod: PodSandbox.fromPartial(pod),
    container: Container.fromPartial({ id: "container-id", name: "container-name" }),
    update: [],
    plugins,
    ...extra,
  };
}

function outcome(
  settings: Partial<DefaultValidatorConfig>,
  request: ValidateContainerAdjustmentRequest,
): string | undefined {
  try {
    checkDefaultValidation(config(settings), request);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const pod = (annotations: Record<string, string> = {}): DeepPartial<PodSandbox> => ({
  id: "pod-id",
  name: "pod-name",
  namespace: "pod-namespace",
  annotations,
});
const ANNOTATED = "required-plugins.noderesource.dev/container.container-name";

describe("default validator: required plugins (default-validator_test.go)", () => {
  it.each<
    [
      string,
      Partial<DefaultValidatorConfig>,
      Record<string, string>,
      Array<{ name: string; index: string }>,
      string | undefined,
    ]
  >([
    ["no required plugins", {}, {}, [], undefined],
    [
      "missing annotated required plugin",
      {},
      { [ANNOTATED]: "[ plugin ]" },
      [],
      'validation error: required plugin "plugin" not present',
    ],
    [
      "present annotated required plugin",
      {},
      { [ANNOTATED]: "[ plugin ]" },
      [{ name: "plugin", index: "00" }],
      undefined,
    ],
    [
      "missing global required plugin",
      { requiredPlugins: ["plugin"] },
      {},
      [],
      'validation error: required plugin "plugin" not present',
    ],
    [
      "present global required plugin",
      { requiredPlugins: ["plugin"] },
      {},
      [{ name: "plugin", index: "00" }],
      undefined,
    ],
    [
      "tolerated missing (global required) plugin",
      { requiredPlugins: ["plugin"], tolerateMissingPluginsAnnotation: "tolerate-missing-plugins" },
      { "tolerate-missing-plugins": "true" },
      [],
      undefined,
    ],
    [
      "present annotated and global required plugin",
      { requiredPlugins: ["plugin1"] },
      { [ANNOTATED]: "[ plugin2 ]" },
      [
        { name: "plugin1", index: "00" },
        { name: "plugin2", index: "01" },
      ],
      undefined,
    ],
    [
      "missing annotated with present global required plugin",
      { requiredPlugins: ["plugin1"] },
      { [ANNOTATED]: "[ plugin2 ]" },
      [{ name: "plugin1", index: "00" }],
      'validation error: required plugin "plugin2" not present',
    ],
    [
      "present annotated with missing global required plugin",
      { requiredPlugins: ["plugin1"] },
      { [ANNOTATED]: "[ plugin2 ]" },
      [{ name: "plugin2", index: "00" }],
      'validation error: required plugin "plugin1" not present',
    ],
  ])("%s", (_name, settings, annotations, plugins, expected) => {
    expect(outcome(settings, validationRequest(pod(annotations), plugins))).toBe(expected);
  });

  it("applies the rule even without an adjustment, and accepts full names", () => {
    const request = validationRequest(pod(), [{ name: "plugin", index: "05" }]);
    expect(outcome({ requiredPlugins: ["05-plugin", "plugin"] }, request)).toBeUndefined();
    expect(outcome({ requiredPlugins: ["06-plugin"] }, request)).toBe(
      'validation error: required plugin "06-plugin" not present',
    );
  });

  it("reads annotations with container > pod > bare precedence, from the pod only", () => {
    const key = "required-plugins.noderesource.dev";
    const plugins = [{ name: "a", index: "00" }];
    expect(
      outcome({}, validationRequest(pod({ [key]: "[x]", [`${key}/pod`]: "[y]", [ANNOTATED]: "[a]" }), plugins)),
    ).toBeUndefined();
    expect(outcome({}, validationRequest(pod({ [key]: "[x]", [`${key}/pod`]: "[y]" }), plugins))).toBe(
      'validation error: required plugin "y" not present',
    );
    expect(outcome({}, validationRequest(pod({ [key]: "[x]", [`${key}/container.other`]: "[a]" }), plugins))).toBe(
      'validation error: required plugin "x" not present',
    );
    const onContainer = validationRequest(pod(), plugins, {
      container: Container.fromPartial({ id: "container-id", name: "container-name", annotations: { [key]: "[x]" } }),
    });
    expect(outcome({}, onContainer)).toBeUndefined();
  });

  it("reads the annotation as YAML: block lists, JSON, empty values", () => {
    const plugins = [
      { name: "a", index: "00" },
      { name: "b", index: "01" },
    ];
    expect(outcome({}, validationRequest(pod({ [ANNOTATED]: "- a\n- b\n" }), plugins))).toBeUndefined();
    expect(outcome({}, validationRequest(pod({ [ANNOTATED]: '["a", "01-b"]' }), plugins))).toBeUndefined();
    expect(outcome({}, validationRequest(pod({ [ANNOTATED]: "" }), []))).toBeUndefined();
    expect(outcome({}, validationRequest(pod({ [ANNOTATED]: "[a, ~, c]" }), plugins))).toBe(
      'validation error: required plugin "c" not present',
    );
  });

  it("rejects an annotation that is not a YAML list, unwrapped", () => {
    const error = outcome({}, validationRequest(pod({ [ANNOTATED]: "plugin" }), []));
    expect(error).toBe(
      'invalid required-plugins.noderesource.dev annotation "plugin": yaml: unmarshal errors:\n  line 1: cannot unmarshal !!str `plugin` into []string',
    );
    expect(outcome({}, validationRequest(pod({ [ANNOTATED]: "[ plugin" }), []))).toBe(
      `invalid required-plugins.noderesource.dev annotation "[ plugin": yaml: line 1: did not find expected ',' or ']'`,
    );
  });

  it("reads the toleration with ParseBool and rejects other values, unwrapped", () => {
    const settings = { requiredPlugins: ["plugin"], tolerateMissingPluginsAnnotation: "tolerate" };
    expect(outcome(settings, validationRequest(pod({ "tolerate/pod": "T" })))).toBeUndefined();
    expect(outcome(settings, validationRequest(pod({ tolerate: "0" })))).toBe(
      'validation error: required plugin "plugin" not present',
    );
    expect(
      outcome(settings, validationRequest(pod({ "tolerate/container.container-name": "yes", tolerate: "true" }))),
    ).toBe('invalid tolerate annotation "yes": strconv.ParseBool: parsing "yes": invalid syntax');
  });

  it("tolerates annotated requirements too, and checks the toleration first", () => {
    const settings = { tolerateMissingPluginsAnnotation: "tolerate" };
    expect(outcome(settings, validationRequest(pod({ tolerate: "1", [ANNOTATED]: "not a list" })))).toBeUndefined();
  });

  it("throws typed errors", () => {
    expect(() => checkDefaultValidation(config({ requiredPlugins: ["x"] }), validationRequest(pod()))).toThrow(
      DefaultValidationError,
    );
    expect(() => checkDefaultValidation(config({}), validationRequest(pod({ [ANNOTATED]: "{}" })))).toThrow(
      AnnotationValueError,
    );
  });
});

describe("default validator: sysctl (default-validator_test.go TestValidateSysctl)", () => {
  const adjust = (sysctl: Record<string, string>) => ({
    annotations: {},
    mounts: [],
    env: [],
    rlimits: [],
    CDIDevices: [],
    args: [],
    linux: { devices: [], cgroupsPath: "", namespaces: [], sysctl, netDevices: {} },
  });

  it("rejects a sysctl a plugin owns", () => {
    const owners = new Ownership();
    owners.claimEntry("container-id", Field.Sysctl, "foo", "plugin2");
    const request = validationRequest(pod(), [{ name: "plugin2", index: "00" }], {
      adjust: adjust({ foo: "bar" }),
      owners: owners.message,
    });
    expect(outcome({ rejectSysctlAdjustment: true }, request)).toBe(
      "validation error: attempted restricted sysctl adjustment by plugin(s) plugin2",
    );
    expect(outcome({}, request)).toBeUndefined();
  });

  it("QUIRK: lets pure removals pass", async () => {
    const { error, adjust: merged } = await createWith(
      { rejectSysctlAdjustment: true },
      [{ name: "foo", index: "10", adjust: () => ({ linux: { sysctl: { "-net.x": "" } } }) }],
      { id: "ctr0", name: "ctr0", linux: { sysctl: { "net.x": "1" } } },
    );
    expect(error).toBeUndefined();
    // Since v0.12.3 the marker is in the reply's sysctl, still never owned.
    expect(merged?.linux?.sysctl).toStrictEqual({ "-net.x": "" });
    expect(merged?.annotations).toStrictEqual({});
  });

  it("lists every owner of a set sysctl", async () => {
    const { error } = await createWith(
      { rejectSysctlAdjustment: true },
      [
        { name: "foo", index: "10", adjust: () => ({ linux: { sysctl: { "net.a": "1" } } }) },
        { name: "bar", index: "20", adjust: () => ({ linux: { sysctl: { "net.b": "1" } } }) },
      ],
      { id: "ctr0", name: "ctr0" },
    );
    expect(error).toBe(
      `${REJECTED}validation error: attempted restricted sysctl adjustment by plugin(s) 10-foo, 20-bar`,
    );
  });
});

describe("default validator: rule order and skips", () => {
  it("runs hooks, seccomp, namespaces, required plugins, sysctl in that order", async () => {
    const everything = {
      rejectOCIHookAdjustment: true,
      rejectUnconfinedSeccompAdjustment: true,
      rejectNamespaceAdjustment: true,
      rejectSysctlAdjustment: true,
      requiredPlugins: ["missing"],
    };
    const all = {
      hooks: { prestart: [{ path: "/h" }] },
      linux: { seccompPolicy: SECCOMP, namespaces: [{ type: "ipc" }], sysctl: { a: "1" } },
    };
    const plugin = (adjust: Plugin["adjust"]): Plugin[] => [{ name: "p", index: "10", adjust }];
    const ctr = { id: "ctr0", name: "ctr0" };
    expect(
      (
        await createWith(
          everything,
          plugin(() => all),
          ctr,
        )
      ).error,
    ).toMatch(/OCI hook injection$/);
    expect(
      (
        await createWith(
          everything,
          plugin(() => ({ linux: all.linux })),
          ctr,
        )
      ).error,
    ).toMatch(/unconfined seccomp policy adjustment$/);
    expect(
      (
        await createWith(
          everything,
          plugin(() => ({ linux: { ...all.linux, seccompPolicy: undefined } })),
          ctr,
        )
      ).error,
    ).toMatch(/namespace adjustment by plugin\(s\) "10-p" \(namespace "ipc"\)$/);
    expect(
      (
        await createWith(
          everything,
          plugin(() => ({ linux: { sysctl: { a: "1" } } })),
          ctr,
        )
      ).error,
    ).toMatch(/"missing" not present$/);
    expect(
      (
        await createWith(
          { ...everything, requiredPlugins: [] },
          plugin(() => ({ linux: { sysctl: { a: "1" } } })),
          ctr,
        )
      ).error,
    ).toMatch(/sysctl adjustment by plugin\(s\) 10-p$/);
  });

  it("skips the adjustment rules when there is no adjustment", () => {
    const owners = new Ownership();
    owners.claimHooks("container-id", "p");
    owners.claim("container-id", Field.SeccompPolicy, "p");
    owners.claimEntry("container-id", Field.Namespace, "ipc", "p");
    const request = validationRequest(pod(), [], { owners: owners.message });
    const strict = {
      rejectOCIHookAdjustment: true,
      rejectUnconfinedSeccompAdjustment: true,
      rejectNamespaceAdjustment: true,
      rejectSysctlAdjustment: true,
    };
    expect(outcome(strict, request)).toBeUndefined();
  });

  it("answers like a validator plugin, and is absent unless enabled", () => {
    expect(defaultValidator(undefined)).toBeUndefined();
    expect(defaultValidator({ ...defaultValidatorConfig(), requiredPlugins: ["x"] })).toBeUndefined();
    const validator = defaultValidator(config({ requiredPlugins: ["x"] }));
    expect(validator?.name).toBe("default-validator");
    expect(validator?.index).toBe("00");
    expect(validator?.validate(validationRequest(pod()))).toStrictEqual({
      reject: true,
      reason: 'validation error: required plugin "x" not present',
    });
    expect(validator?.validate(validationRequest(pod(), [{ name: "x", index: "01" }]))).toStrictEqual({
      reject: false,
      reason: "",
    });
  });

  it("keeps its own copy of the configuration", () => {
    const settings = config({ requiredPlugins: ["x"] });
    const validator = defaultValidator(settings);
    settings.requiredPlugins.push("y");
    settings.enable = false;
    expect(validator?.validate(validationRequest(pod(), [{ name: "x", index: "01" }])).reject).toBe(false);
  });
});
