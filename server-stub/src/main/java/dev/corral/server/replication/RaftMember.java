package dev.corral.server.replication;

import java.util.Objects;

/**
 * One member of the Raft group: its id (stable across restarts; it names the
 * member in the log) and the loopback or network address its Raft port listens
 * on. Port 0 lets a single-member group bind any free port.
 */
public record RaftMember(String id, String host, int port) {
  public RaftMember {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    if (!id.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException("member id must be 1-64 of [A-Za-z0-9_.-]: " + id);
    }
    if (host.isBlank()) {
      throw new IllegalArgumentException("member " + id + " has a blank host");
    }
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("member " + id + " has port " + port + " outside [0, 65535]");
    }
  }

  /** {@code host:port}, as Ratis addresses peers. */
  String address() {
    return host + ":" + port;
  }
}
