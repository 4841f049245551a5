/*
 * The @nri-ts/adaptation merge engine against the upstream Go adaptation
 * (github.com/containerd/nri/pkg/adaptation, as pinned in go.mod): the same
 * scenario (a runtime request, what each plugin answers, which validators
 * exist) goes to cmd/merge-oracle, where builtin plugins give those answers
 * to a real Go adaptation, and to our engine. Both must decide alike:
 *
 * - the merged reply (CreateContainer: adjustment and updates of other
 *   containers; UpdateContainer: updates, with the position of Go's trailing
 *   nil entry; StopContainer: updates),
 * - the runtime's request as each plugin got it and as the plugins left it,
 * - the validation request (pod, container, reply, owners, plugin list),
 * - the error text, if the request fails (conflict, update of the container
 *   being created, a validator's rejection).
 *
 * What is tolerated, and why. Messages are compared decoded, so the order of
 * map entries on the wire does not count (Go writes them in random order; it
 * carries no meaning). Beyond that, the Go adaptation decides some things by
 * iterating a Go map, whose order changes from run to run, and it reads its
 * validators' verdicts in the order their goroutines finish:
 *
 *   1. which key a conflict reports when a plugin's map (annotations, sysctl,
 *      net devices, unified) conflicts on several keys, and so also which
 *      other plugin it names, and how much of that map reached the request
 *      copy before the conflict;
 *   2. the order of the removal markers a plugin's mounts echo into the reply
 *      (and so into the validation request);
 *   3. the order of the request copy's namespaces (rebuilt from a map);
 *   4. the order of the offenders the default validator lists for namespace
 *      and sysctl adjustments;
 *   5. which rejection is reported when several validators reject.
 *
 * One more such case is kept out of the scenarios instead (see `updates` in
 * merge-scenarios.ts): an ignored conflict inside an update's unified map
 * with several keys leaves a map-order-dependent set of keys claimed, which
 * can make a later update fail in one run and pass in the next.
 *
 * So when Go's first run of a scenario decided differently from ours, the
 * scenario runs GO_RUNS more times in the same Go adaptation: ours must equal
 * one of Go's outcomes exactly, and Go's outcomes must differ from each other
 * only in the five ways above, so that nothing else passes as "random".
 * `withoutRunToRunVariation` erases those five places: mount and namespace
 * order; for a conflict, its key, the other plugin and the request copy left
 * behind; for a rejection, which validator rejected and why.
 */
import type { CreateContainerResponse, DeepPartial } from "@nri-ts/api";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWithGo, goCommand } from "./go.js";
import { canonical, decideWithOurs, GoMergeOracle, type Outcome } from "./merge-oracle.js";
import {
  CONTAINER,
  type CreateScenario,
  createScenario,
  type MergeScenario,
  stopScenario,
  updateScenario,
  validatorScenario,
} from "./merge-scenarios.js";

const SEED = 20_261_129;
/** Go runs to collect the outcomes of a scenario Go may decide in several ways; ours is usually Go's commonest. */
const GO_RUNS = 64;

let oracle: GoMergeOracle;

/** The outcome with the five run-to-run variations of the Go adaptation erased (see the top of this file). */
function withoutRunToRunVariation(outcome: Outcome): unknown {
  const copy: Outcome = structuredClone(outcome);
  const sortAt = (message: unknown, ...path: string[]) => {
    let node = message as Record<string, unknown> | undefined;
    for (const key of path) node = node?.[key] as Record<string, unknown> | undefined;
    if (Array.isArray(node)) node.sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1));
  };
  sortAt(copy.response, "adjust", "mounts"); // 2
  sortAt(copy.validation, "adjust", "mounts"); // 2, as validators see the reply
  for (const request of [copy.request, ...copy.seen.map((seen) => seen.request)]) {
    sortAt(request, "container", "linux", "namespaces"); // 3
  }
  if (copy.error !== undefined) {
    const conflict = /^(plugins "[^"]*") and "[^"]*" both tried to set (\S+) /.exec(copy.error);
    if (conflict) {
      copy.error = `${conflict[1]} and another plugin both tried to set ${conflict[2]} (some key)`; // 1
      copy.request = "(partly merged before the conflict)"; // 1
    } else if (copy.error.startsWith("validator ")) {
      copy.error = "some validator rejected the adjustment"; // 4, 5
    }
  }
  return copy;
}

/** Ours must decide as Go does in some run; Go's runs may differ only as documented at the top. */
async function expectSameDecision(scenario: MergeScenario): Promise<Outcome> {
  const ours = await decideWithOurs(scenario);
  const oursCanonical = canonical(ours);
  const matches = (outcome: Outcome) => canonical(outcome) === oursCanonical;
  let go = await oracle.decide(scenario);
  if (!matches(go[0]!.outcome)) {
    go = await oracle.decide(scenario, GO_RUNS);
    const first = withoutRunToRunVariation(go[0]!.outcome);
    for (const { outcome } of go) {
      expect(withoutRunToRunVariation(outcome), "Go varied beyond the documented run-to-run variation").toEqual(first);
    }
    if (!go.some(({ outcome }) => matches(outcome))) {
      const ways =
        go.length === 1
          ? `the same in all ${GO_RUNS} runs`
          : `${go.length} ways in ${GO_RUNS} runs: ${go.map(({ runs }) => runs).join(" + ")}; the first shown`;
      expect(ours, `ours vs the Go adaptation (which decided ${ways})`).toEqual(go[0]!.outcome);
    }
  }
  return ours;
}

describeWithGo("the merge engine decides as the Go adaptation does", () => {
  beforeAll(async () => {
    oracle = new GoMergeOracle(await goCommand("merge-oracle"));
  }, 180_000);

  afterAll(async () => {
    await oracle?.close();
  });

  describe("random scenarios (fast-check, fixed seed)", () => {
    const properties: Array<[string, fc.Arbitrary<MergeScenario>, number]> = [
      ["CreateContainer", createScenario, 300],
      ["UpdateContainer", updateScenario, 200],
      ["StopContainer", stopScenario, 100],
      ["CreateContainer with the default validator", validatorScenario, 300],
    ];
    for (const [name, arbitrary, numRuns] of properties) {
      it(`${name}: ${numRuns} scenarios`, async () => {
        await fc.assert(
          fc.asyncProperty(arbitrary, async (scenario) => {
            await expectSameDecision(scenario);
          }),
          { seed: SEED, numRuns },
        );
      }, 120_000);
    }
  });

  describe("named scenarios", () => {
    const p1 = { index: "10", name: "p1" };
    const p2 = { index: "20", name: "p2" };
    const p3 = { index: "30", name: "p3" };
    const pod = { id: "pod0", name: "web", namespace: "default" };
    const container = {
      id: CONTAINER,
      podSandboxId: "pod0",
      name: CONTAINER,
      env: ["PATH=/bin"],
      annotations: { owner: "runtime" },
    };
    const creating = (
      answers: Array<DeepPartial<CreateContainerResponse> | null>,
      rest: Partial<CreateScenario> = {},
    ): CreateScenario => ({
      kind: "create",
      request: { pod, container },
      plugins: answers.map((response, i) => ({ ...[p1, p2, p3][i]!, response })),
      ...rest,
    });

    it("two plugins setting the same variable conflict, with Go's text", async () => {
      const outcome = await expectSameDecision(
        creating([
          { adjust: { env: [{ key: "GOMAXPROCS", value: "2" }] } },
          { adjust: { env: [{ key: "GOMAXPROCS", value: "4" }] } },
        ]),
      );
      expect(outcome.error).toBe('plugins "20-p2" and "10-p1" both tried to set Env GOMAXPROCS');
    });

    it("a plugin that removes and sets an annotation takes it over; a third one then conflicts with it", async () => {
      const takeover = creating([
        { adjust: { annotations: { "example.com/tier": "gold" } } },
        { adjust: { annotations: { "-example.com/tier": "", "example.com/tier": "silver" } } },
      ]);
      const outcome = await expectSameDecision(takeover);
      expect(outcome.response).toMatchObject({
        adjust: { annotations: { "-example.com/tier": "", "example.com/tier": "silver" } },
      });

      takeover.plugins.push({ ...p3, response: { adjust: { annotations: { "example.com/tier": "bronze" } } } });
      expect((await expectSameDecision(takeover)).error).toBe(
        'plugins "30-p3" and "20-p2" both tried to set Annotations example.com/tier',
      );
    });

    it("an update of the container being created fails the creation", async () => {
      const outcome = await expectSameDecision(creating([{ update: [{ containerId: CONTAINER }] }]));
      expect(outcome.error).toBe(`plugin "10-p1" asked update of "${CONTAINER}" during creation`);
    });

    it("UpdateContainer ends its updates with a nil entry when no plugin updated the requested container", async () => {
      const outcome = await expectSameDecision({
        kind: "update",
        request: { pod, container, linuxResources: { cpu: { shares: { value: 512n } } } },
        plugins: [
          {
            ...p1,
            response: { update: [{ containerId: "ctr1", linux: { resources: { cpu: { shares: { value: 256n } } } } }] },
          },
          { ...p2, response: null },
        ],
      });
      expect(outcome.nullUpdates).toEqual([1]);
    });

    it("UpdateContainer: a second plugin updating the requested container's pids limit conflicts", async () => {
      const pids = { update: [{ containerId: CONTAINER, linux: { resources: { pids: { limit: 10n } } } }] };
      const outcome = await expectSameDecision({
        kind: "update",
        request: { pod, container, linuxResources: { pids: { limit: 5n } } },
        plugins: [
          { ...p1, response: pids },
          { ...p2, response: pids },
        ],
      });
      expect(outcome.error).toBe('plugins "20-p2" and "10-p1" both tried to set PidsLimit ');
    });

    it("a validator plugin rejecting without a reason", async () => {
      const scenario = creating([{ adjust: { annotations: { "example.com/tier": "gold" } } }, null]);
      scenario.plugins[1]!.reject = "";
      const outcome = await expectSameDecision(scenario);
      expect(outcome.error).toBe('validator "20-p2" rejected container adjustment, reason: unknown rejection reason');
    });

    describe("default validator rejections", () => {
      const validated = (
        config: Record<string, unknown>,
        answers: Array<DeepPartial<CreateContainerResponse> | null>,
      ) => creating(answers, { defaultValidator: { enable: true, ...config } });
      const rejection = (reason: string) =>
        `validator "00-default-validator" rejected container adjustment, reason: ${reason}`;

      it("OCI hook injection", async () => {
        const outcome = await expectSameDecision(
          validated({ rejectOCIHookAdjustment: true }, [
            { adjust: { hooks: { prestart: [{ path: "/bin/hook" }] } } },
            { adjust: { hooks: { poststop: [{ path: "/bin/other" }] } } },
          ]),
        );
        expect(outcome.error).toBe(
          rejection('validation error: plugins "10-p1,20-p2" attempted restricted OCI hook injection'),
        );
      });

      it("a seccomp policy for an unconfined container (Go's text has a double space)", async () => {
        const outcome = await expectSameDecision(
          validated({ rejectUnconfinedSeccompAdjustment: true }, [
            { adjust: { linux: { seccompPolicy: { defaultAction: "SCMP_ACT_ERRNO" } } } },
          ]),
        );
        expect(outcome.error).toBe(
          rejection("validation error: plugin 10-p1 attempted restricted  unconfined seccomp policy adjustment"),
        );
      });

      it("a missing required plugin, named by the pod annotation", async () => {
        const scenario = validated({ requiredPlugins: ["p1"] }, [{}]);
        scenario.request = {
          pod: { ...pod, annotations: { "required-plugins.noderesource.dev/container.ctr0": "[p1, 20-p2, gpu]" } },
          container,
        };
        const outcome = await expectSameDecision(scenario);
        expect(outcome.error).toBe(rejection('validation error: required plugins "20-p2,gpu" not present'));
      });

      it("a required-plugins annotation that is not a YAML list", async () => {
        const scenario = validated({}, [{}]);
        scenario.request = {
          pod: { ...pod, annotations: { "required-plugins.noderesource.dev": "{gpu: true}" } },
          container,
        };
        const outcome = await expectSameDecision(scenario);
        expect(outcome.error).toMatch(
          /^validator "00-default-validator" rejected container adjustment, reason: invalid required-plugins\.noderesource\.dev annotation "\{gpu: true\}": yaml: unmarshal errors:/,
        );
      });

      it("a sysctl adjustment; the validation request lists every plugin, subscribed or not", async () => {
        const outcome = await expectSameDecision(
          validated({ rejectSysctlAdjustment: true }, [
            null,
            { adjust: { linux: { sysctl: { "net.core.somaxconn": "1024" } } } },
          ]),
        );
        expect(outcome.error).toBe(
          rejection("validation error: attempted restricted sysctl adjustment by plugin(s) 20-p2"),
        );
        expect(outcome.validation).toMatchObject({
          plugins: [
            { name: "default-validator", index: "00" },
            { name: "p1", index: "10" },
            { name: "p2", index: "20" },
            { name: "capture", index: "99" },
          ],
        });
      });
    });
  });
});
