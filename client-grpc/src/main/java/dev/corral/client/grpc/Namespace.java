package dev.corral.client.grpc;

import dev.corral.client.PathRules;

/**
 * The client's namespace: a path prefix added to every path sent and stripped
 * from every path received ({@code "/app"} for namespace {@code "app"}; empty for none).
 */
final class Namespace {
  static final Namespace NONE = new Namespace("");

  private final String prefix;

  private Namespace(String prefix) {
    this.prefix = prefix;
  }

  /**
   * The namespace {@code name} ("app" or "app/sub", without a leading slash).
   *
   * @throws IllegalArgumentException if {@code "/" + name} is not a valid path
   */
  static Namespace of(String name) {
    if (name.isEmpty()) {
      return NONE;
    }
    String prefix = "/" + name;
    PathRules.violation(prefix).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid namespace \"" + PathRules.printable(name) + "\": " + rule);
    });
    return new Namespace(prefix);
  }

  boolean isNone() {
    return prefix.isEmpty();
  }

  /** The namespace's own node ("/app"); "/" for none. */
  String root() {
    return prefix.isEmpty() ? "/" : prefix;
  }

  /** The server path of a client path. */
  String toServer(String path) {
    if (prefix.isEmpty()) {
      return path;
    }
    return path.equals("/") ? prefix : prefix + path;
  }

  /** The client path of a server path (unchanged if it lies outside the namespace). */
  String toClient(String path) {
    if (prefix.isEmpty() || path.isEmpty()) {
      return path;
    }
    if (path.equals(prefix)) {
      return "/";
    }
    return path.startsWith(prefix + "/") ? path.substring(prefix.length()) : path;
  }
}
