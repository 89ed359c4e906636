package dev.corral.server.tree;

import dev.corral.proto.v1.WatchEvent;
import java.util.List;

/**
 * The last change events applied, kept with a snapshot so that a server
 * restarted from it can still tell a returning session exactly what it missed:
 * every event after {@code horizon}, in order.
 */
public record ChangeHistory(long horizon, List<WatchEvent> events) {
  public ChangeHistory {
    events = List.copyOf(events);
  }

  /** No events known: the history starts after {@code zxid}. */
  public static ChangeHistory startingAfter(long zxid) {
    return new ChangeHistory(zxid, List.of());
  }
}
