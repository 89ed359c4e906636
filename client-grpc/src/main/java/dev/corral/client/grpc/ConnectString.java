package dev.corral.client.grpc;

import dev.corral.client.PathRules;
import java.util.List;

/**
 * A connect string as ZooKeeper reads one: servers, then an optional chroot
 * path from the first slash on ({@code "h1:7181,h2:7181/app"}).
 *
 * @param servers the servers, in the order given
 * @param chroot the chroot path ("/app"), or empty for none (also for a bare "/")
 */
record ConnectString(List<ServerList.Address> servers, String chroot) {

  /**
   * Parses {@code connectString}.
   *
   * @throws IllegalArgumentException naming the server entry that is not host:port, or the chroot that is not a
   *     valid path
   */
  static ConnectString parse(String connectString) {
    int slash = connectString.indexOf('/');
    if (slash < 0) {
      return new ConnectString(ServerList.parse(connectString), "");
    }
    String chroot = connectString.substring(slash);
    List<ServerList.Address> servers = ServerList.parse(connectString.substring(0, slash));
    if (chroot.equals("/")) {
      return new ConnectString(servers, "");
    }
    PathRules.violation(chroot).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid chroot \"" + PathRules.printable(chroot)
          + "\" in the connect string: " + rule);
    });
    return new ConnectString(servers, chroot);
  }

  /** As it was given (the servers joined by commas, then the chroot). */
  @Override
  public String toString() {
    return String.join(",", servers.stream().map(ServerList.Address::toString).toList()) + chroot;
  }

  /** The client's namespace: the chroot's path, with {@code namespace} (relative; null for none) inside it. */
  Namespace namespace(String namespace) {
    String root = chroot.isEmpty() ? "" : chroot.substring(1);
    if (namespace == null) {
      return Namespace.of(root);
    }
    return Namespace.of(root.isEmpty() ? namespace : root + "/" + namespace);
  }
}
