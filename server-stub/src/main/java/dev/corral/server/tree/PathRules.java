package dev.corral.server.tree;

import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import java.util.Optional;

/**
 * The protocol's path rules as protocol errors. The rules themselves live in
 * {@link dev.corral.client.PathRules}, shared with the client, so both sides
 * refuse exactly the same paths.
 */
final class PathRules {
  private PathRules() {}

  /**
   * Checks a path; for a sequential create, checks it as it will be once the
   * counter is appended (so "/q/" is allowed there).
   */
  static Optional<Error> check(String path, boolean sequential) {
    return violation(sequential ? path + "0" : path).map(rule -> invalidPath(path, rule));
  }

  /**
   * A created path over the length limit, as INVALID_PATH; for a sequential
   * create counting the counter's digits. Creates before the log only: the
   * apply and the snapshot loader do not check it, so logs from before the
   * limit replay as they were applied, and no other request checks it, so
   * nodes made before it can still be read, watched and deleted.
   */
  static Optional<Error> checkLength(String path, boolean sequential) {
    return dev.corral.client.PathRules.lengthViolation(path, sequential).map(rule -> invalidPath(path, rule));
  }

  private static Error invalidPath(String path, String rule) {
    return Errors.of(ErrorCode.INVALID_PATH, dev.corral.client.PathRules.describe(path, rule), path);
  }

  /** The rule {@code path} breaks, or empty if it is valid. */
  static Optional<String> violation(String path) {
    return dev.corral.client.PathRules.violation(path);
  }

  /** The path with control and refused characters escaped, for messages. */
  static String printable(String path) {
    return dev.corral.client.PathRules.printable(path);
  }
}
