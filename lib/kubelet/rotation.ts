/**
 * When the kubelet's certificate manager rotates a certificate (client-go
 * `util/certificate/certificate_manager.go`): the deadline is
 * `NotBefore + jitteryDuration(NotAfter − NotBefore)`, jitteryDuration(t) =
 * `wait.Jitter(t, 0.2) − 0.3·t`, i.e. uniform in [70 %, 90 %) of the lifetime;
 * and whether a certificate still satisfies the kubelet's template.
 *
 * @module
 */

/** The window in which rotation happens. */
export interface RotationWindow {
  /** Earliest deadline: NotBefore + 70 % of the lifetime. */
  start: Date;
  /** Latest deadline (exclusive): NotBefore + 90 % of the lifetime. */
  end: Date;
}

/**
 * The rotation window of a certificate valid from `notBefore` to `notAfter`.
 *
 * @example
 * ```ts
 * rotationWindow(new Date(0), new Date(100_000)); // start 70 s, end 90 s
 * ```
 */
export function rotationWindow(notBefore: Date, notAfter: Date): RotationWindow {
  return {
    start: rotationDeadline(notBefore, notAfter, 0),
    end: rotationDeadline(notBefore, notAfter, 1),
  };
}

/**
 * `nextRotationDeadline` for a given jitter draw `r` in [0, 1) (client-go uses
 * `rand.Float64()`): NotBefore + (0.7 + 0.2·r)·lifetime.
 */
export function rotationDeadline(notBefore: Date, notAfter: Date, r: number): Date {
  const total = notAfter.getTime() - notBefore.getTime();
  return new Date(notBefore.getTime() + Math.round((0.7 + 0.2 * r) * total));
}

/** The parts of a certificate or template compared by `certSatisfiesTemplate`. */
export interface TemplateFacts {
  commonName: string;
  organization: readonly string[];
  dns: readonly string[];
  ips: readonly string[];
}

/**
 * client-go `certSatisfiesTemplate`: equal CN, and the template's
 * organizations, DNS names and IPs each a subset of the certificate's.
 * A missing certificate never satisfies; a missing template always does.
 */
export function certSatisfiesTemplate(
  cert: TemplateFacts | undefined,
  template: Partial<TemplateFacts> | undefined,
): boolean {
  if (cert === undefined) return false;
  if (template === undefined) return true;
  if (template.commonName !== undefined && template.commonName !== cert.commonName) return false;
  const subset = (want: readonly string[] | undefined, have: readonly string[]) =>
    (want ?? []).every((w) => have.includes(w));
  return subset(template.organization, cert.organization) && subset(template.dns, cert.dns) &&
    subset(template.ips, cert.ips);
}
