/**
 * The cluster's certificates and credentials, made with `openssl` when the
 * cluster starts and kept in its directory: a CA, the API server's serving
 * certificate (for every name and address clients use: loopback, the
 * `kubernetes` Service's cluster IP, its DNS names), its client
 * certificate for the kubelets, the service-account signing key, and one
 * bearer token per identity (the static token file of the API server).
 * ECDSA P-256 throughout: fast to make, and every component takes it.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../exec.js";

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  /** The API server's client certificate toward the kubelets (logs, exec). */
  kubeletClientCert: string;
  kubeletClientKey: string;
  /** The service-account signing key (private; its public half verifies). */
  serviceAccountKey: string;
  serviceAccountPub: string;
}

async function key(file: string): Promise<void> {
  await run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", file]);
}

/** A certificate for `subject`, signed by the CA, with the given extensions (openssl's x509v3 syntax). */
async function issue(pki: Pki, name: string, subject: string, extensions: string[]): Promise<[string, string]> {
  const [keyFile, csr, cert, ext] = ["key", "csr", "crt", "ext"].map((suffix) => join(pki.dir, `${name}.${suffix}`));
  await key(keyFile);
  await run("openssl", ["req", "-new", "-key", keyFile, "-subj", subject, "-out", csr]);
  writeFileSync(ext, `${extensions.join("\n")}\n`);
  await run("openssl", [
    ...[
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      pki.caCert,
      "-CAkey",
      pki.caKey,
      "-set_serial",
      `0x${randomBytes(8).toString("hex")}`,
    ],
    ...["-days", "7", "-extfile", ext, "-out", cert],
  ]);
  return [cert, keyFile];
}

/** Makes the certificates in `dir`; `addresses` and `names` go into the serving certificate. */
export async function makePki(dir: string, addresses: readonly string[], names: readonly string[]): Promise<Pki> {
  mkdirSync(dir, { recursive: true });
  const pki: Pki = {
    dir,
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    serverCert: "",
    serverKey: "",
    kubeletClientCert: "",
    kubeletClientKey: "",
    serviceAccountKey: join(dir, "sa.key"),
    serviceAccountPub: join(dir, "sa.pub"),
  };
  await key(pki.caKey);
  await run("openssl", [
    ...["req", "-x509", "-new", "-key", pki.caKey, "-subj", "/CN=nri-e2e-ca", "-days", "7", "-out", pki.caCert],
    ...["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
  ]);
  const usage = "keyUsage=critical,digitalSignature,keyEncipherment";
  const sans = [...addresses.map((ip) => `IP:${ip}`), ...names.map((name) => `DNS:${name}`)].join(",");
  [pki.serverCert, pki.serverKey] = await issue(pki, "apiserver", "/CN=kube-apiserver", [
    usage,
    "extendedKeyUsage=serverAuth",
    `subjectAltName=${sans}`,
  ]);
  // the kubelets authorize the API server by its group (system:masters may do anything)
  [pki.kubeletClientCert, pki.kubeletClientKey] = await issue(
    pki,
    "apiserver-kubelet-client",
    "/O=system:masters/CN=kube-apiserver-kubelet-client",
    [usage, "extendedKeyUsage=clientAuth"],
  );
  await key(pki.serviceAccountKey);
  await run("openssl", ["pkey", "-in", pki.serviceAccountKey, "-pubout", "-out", pki.serviceAccountPub]);
  return pki;
}

/** Who a token authenticates as. */
export interface Identity {
  user: string;
  groups?: readonly string[];
}

/** A fresh bearer token. */
export function newToken(): string {
  return randomBytes(24).toString("hex");
}

/** The API server's `--token-auth-file`: `token,user,uid,"group1,group2"` per line. */
export function tokenFile(file: string, tokens: ReadonlyMap<string, Identity>): void {
  const lines = [...tokens].map(([token, { user, groups = [] }]) => {
    const base = `${token},${user},${user}`;
    return groups.length > 0 ? `${base},"${groups.join(",")}"` : base;
  });
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
}

/** A kubeconfig that reaches `server` with `token`, trusting the cluster's CA. */
export function kubeconfig(file: string, server: string, caCert: string, token: string): void {
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "nri-e2e", cluster: { server, "certificate-authority": caCert } }],
      users: [{ name: "user", user: { token } }],
      contexts: [{ name: "nri-e2e", context: { cluster: "nri-e2e", user: "user" } }],
      "current-context": "nri-e2e",
    }),
    { mode: 0o600 },
  );
}
