/**
 * What the V8 startup snapshot runs once at build time, after initialising the
 * modules (scripts/build.ts bundles this module into the snapshot's entry):
 * the start-up commands' paths, so that V8 keeps their bytecode in the
 * snapshot (it keeps a function's bytecode, not its type feedback) instead of
 * compiling them again at every start-up: ~5 ms of `ca hash` and
 * `join-command`, which parse a certificate (issue 13).
 *
 * Only what reads nothing of the process belongs here: no clock (the runs get
 * {@link WARM_CLOCK}), no randomness (never `token generate`: what it draws
 * would be frozen into every binary), no environment, no terminal, and no file
 * (node's fs binding keeps the last file's stat, which would make every
 * build's bytes differ). What it leaves in module state is what an earlier run
 * in the same process leaves (caches of parsed names, scratch buffers, the
 * count of hashes done), as the in-process tests run `run()` again and again.
 *
 * @module
 */

import { type Io, run } from "../cli.ts";
import { extractCertificates, loadClusterCa } from "../lib/pki/certsource.ts";
import { caCertHash } from "../lib/pki/pin.ts";

/** The clock of the warm-up's runs: a fixed time, within {@link WARM_CA_PEM}'s validity. */
export const WARM_CLOCK = "2027-01-01T00:00:00Z";

/**
 * Command lines the warm-up runs (output to a sink, the clock at
 * {@link WARM_CLOCK}, no environment): the dispatcher, flag parsing and help
 * of the start-up commands. Each must exit 0.
 */
export const WARM_RUNS: readonly (readonly string[])[] = [
  ["--version"],
  ["ca", "hash", "--help"],
  ["join-command", "--help"],
  ["token", "generate", "--help"],
];

/**
 * What the warm-up parses and pins, as `ca hash` reads a file and
 * `join-command` its `--ca`: two CA certificates as openssl and kubeadm make
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

/**
 * Runs {@link WARM_RUNS}, then the certificate readers of `ca hash`
 * (extractCertificates) and `join-command` (loadClusterCa) and the pin on
 * {@link WARM_CA_PEM}. Throws when a run does not exit 0 or a parse fails
 * (which fails the snapshot build); returns the pins (both readers').
 */
export async function warmUp(): Promise<string[]> {
  for (const argv of WARM_RUNS) {
    const said: string[] = [];
    const io: Io = {
      stdout() {},
      stderr: (line) => void said.push(line),
      clock: () => new Date(WARM_CLOCK),
      env: {},
    };
    const code = await run(argv, io);
    if (code !== 0) {
      throw new Error(
        `snapshot warm-up: joinkit ${argv.join(" ")} exited ${code}: ${said.join(" | ")}`,
      );
    }
  }
  const text = WARM_CA_PEM;
  const bytes = new TextEncoder().encode(text);
  const pins = (await extractCertificates({ name: "warm-up", text, bytes })).map(caCertHash);
  for (const cert of await loadClusterCa(bytes, "warm-up")) pins.push(caCertHash(cert.der));
  return pins;
}
