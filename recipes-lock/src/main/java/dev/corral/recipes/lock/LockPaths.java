package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;
import dev.corral.client.PathRules;
import dev.corral.client.Paths;
import java.util.Objects;

/** Checks of constructor arguments, the same for every lock type. */
final class LockPaths {
  private LockPaths() {}

  /** {@code path} if it is a valid path other than the root; throws IllegalArgumentException otherwise. */
  static String check(String path) {
    Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException(PathRules.describe(path, rule));
    });
    if (path.equals(Paths.ROOT)) {
      throw new IllegalArgumentException("a lock path cannot be the root");
    }
    return path;
  }

  static CoordinationClient check(CoordinationClient client) {
    return Objects.requireNonNull(client, "client");
  }
}
