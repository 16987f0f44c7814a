/**
 * What the build runs once, with the binary's own runtime, before it makes the
 * binary's V8 code caches (scripts/sea/code_cache.ts): the start-up commands,
 * for real, so that the caches hold the code those commands run and the
 * binary does not compile it again at every start (issue 13, issue 22: the
 * start-up target is 1.15× `node hello.js`).
 *
 * A code cache holds compiled code and the constants in it, never a value the
 * run computed: unlike the V8 startup snapshot this replaced, nothing of these
 * runs (the clock, the tokens drawn, the files read) reaches the binary.
 * tests/build/code_cache_test.ts checks that every run exits 0.
 *
 * @module
 */

import * as fs from "node:fs";
import { type Io, run } from "../../cli.ts";

/** The clock of the warm-up's runs: a fixed time, within {@link WARM_CA_PEM}'s validity. */
export const WARM_CLOCK = "2027-01-01T00:00:00Z";

/** Stands for the path of {@link WARM_CA_FILE} in {@link WARM_RUNS}. */
export const WARM_CA_ARG = "{ca}";

/** Stands for a new directory in the warm-up's directory, for `ca create`, in {@link WARM_RUNS}. */
export const WARM_CA_DIR_ARG = "{ca-dir}";

/**
 * Command lines the warm-up runs: the start-up commands (`--version`, `token
 * generate`, `ca hash`, `join-command`), for real and with `--help`, and the
 * first YAML and X.509 commands (`rbac`, `token create`, `ca create`: with
 * their code cached they start 4-6 ms sooner; the start-up commands' chunks
 * do not grow measurably). Each must exit 0. Never a command that changes
 * V8's flags for its fleet runs (`cert verify`, `cert inspect`, `cluster-info
 * sign`: commands/_fleet.ts): that changes V8's flag hash for the rest of the
 * process, every cache written after it would carry it, and the binary would
 * refuse them all (tried: the build's smoke test stopped it).
 */
export const WARM_RUNS: readonly (readonly string[])[] = [
  ["--version"],
  ["token", "generate"],
  ["ca", "hash", WARM_CA_ARG],
  [
    "join-command",
    "--server",
    "10.0.0.1:6443",
    "--token",
    "abcdef.0123456789abcdef",
    "--ca",
    WARM_CA_ARG,
  ],
  ["rbac"],
  ["token", "create"],
  ["ca", "create", "--out-dir", WARM_CA_DIR_ARG, "--key-type", "ecdsa-p256"],
  ["ca", "hash", "--help"],
  ["join-command", "--help"],
  ["token", "generate", "--help"],
];

/**
 * The CA file `ca hash` and `join-command` read in the warm-up: two CA certificates as openssl and kubeadm make
 * them, ECDSA P-256 (`openssl req -x509 -newkey ec`, as the benchmark's CA) and
 * RSA-2048 (tests/fixtures/pin/ca-cert.pem, a kubeadm CA).
 */
export const WARM_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBkDCCATWgAwIBAgIUDmyQ/dhSCgVg7HR+hlQfhggbR6swCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjUyMTIwMzBaFw0zNjExMjIy
MTIwMzBaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASAb1hSbDP5hyK5oooUmCqjn9OjdWaIZp0MjEaOGjz77f2s/SQGlhBo
lcgwXDCCRhyTD1Z1Z/hClXgq6lQi0TMbo2MwYTAdBgNVHQ4EFgQUQ3i9kfSG4Vf9
/3mtnOdays86gbIwHwYDVR0jBBgwFoAUQ3i9kfSG4Vf9/3mtnOdays86gbIwDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAoQwCgYIKoZIzj0EAwIDSQAwRgIh
ALLFABULSFsKZa4bGmHC16DoBIF0XVIsuYHZTrBFStJuAiEAiNmHFtnFkzBH2ZJr
T9UJdsknQnkFfkMuD/cmmWSzm0E=
-----END CERTIFICATE-----
-----BEGIN CERTIFICATE-----
MIICyDCCAbCgAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJl
cm5ldGVzMB4XDTE5MTEyMDAwNDk0MloXDTI5MTExNzAwNDk0MlowFTETMBEGA1UE
AxMKa3ViZXJuZXRlczCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMqQ
ctECzA8yFSuVYupOUYgrTmfQeKe/9BaDWagaq7ow9+I2IvsfWFvlrD8QQr8sea6q
xjq7TV67Vb4RxBaoYDA+yI5vIcujWUxULun64lu3Q6iC1sj2UnmUpIdgazRXXEkZ
vxA6EbAnoxA0+lBOn1CZWl23IQ4s70o2hZ7wIp/vevB88RRRjqtvgc5elsjsbmDF
LS7L1Zuye8c6gS93bR+VjVmSIfr1IEq0748tIIyXjAVCWPVCvuP41MlfPc/JVpZD
uD2+pO6ZYREcdAnOf2eD4/eLOMKko4L1dSFy9JKM5PLnOC0Zk0AYOd1vS8DTAfxj
XPEIY8OBYFhlsxf4TE8CAwEAAaMjMCEwDgYDVR0PAQH/BAQDAgKkMA8GA1UdEwEB
/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAH/OYq8zyl1+zSTmuow3yI/15PL1
dl8hB7IKnZNWmC/LTdm/+noh3Sb1IdRv6HkKg/GUn0UMuRUngLhju3EO4ozJPQcX
quaxzgmTKNWJ6ErDvRvWhGX0ZcbdBfZv+dowyRqzd5nlJ49hC+NrtFFQq6P05BYn
7SemguqeXmXwIj2Sa+1DeR6lRm9o8shAYjnyThUFqaMn18kI3SANJ5vk/3DFrPEO
CKC9EzFku2kuxg2dM12PbRGZQ2o0K6HEZgrrIKTPOy3ocb8r9M0aSFhjOV/NqGA4
SaupXSW6XfvIi/UHoIbU3pNcsnUJGnQfQvip95XKk/gqcUr+m50vxgumxtA=
-----END CERTIFICATE-----
`;

/** Where {@link warmUp} writes {@link WARM_CA_PEM} in its directory. */
export const WARM_CA_FILE = "warm-up-ca.crt";

/**
 * Runs {@link WARM_RUNS} in `dir` (where it writes {@link WARM_CA_FILE}), each
 * with its output to a sink and the clock at {@link WARM_CLOCK}; throws when
 * one does not exit 0 (which fails the build). Returns what each printed on
 * stdout.
 */
export async function warmUp(dir: string): Promise<string[]> {
  const ca = `${dir}/${WARM_CA_FILE}`;
  fs.writeFileSync(ca, WARM_CA_PEM);
  const printed: string[] = [];
  for (const template of WARM_RUNS) {
    const argv = template.map((a) =>
      a === WARM_CA_ARG ? ca : a === WARM_CA_DIR_ARG ? `${dir}/warm-up-pki` : a
    );
    const said: string[] = [];
    let out = "";
    const io: Io = {
      stdout: (text) => void (out += text),
      stderr: (line) => void said.push(line),
      clock: () => new Date(WARM_CLOCK),
      env: {},
    };
    const code = await run(argv, io);
    if (code !== 0) {
      throw new Error(
        `code cache warm-up: joinkit ${argv.join(" ")} exited ${code}: ${said.join(" | ")}`,
      );
    }
    printed.push(out);
  }
  return printed;
}
