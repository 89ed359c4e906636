package dev.corral.server.watch;

import dev.corral.proto.v1.WatchEvent;
import dev.corral.server.tree.ChangeHistory;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The last change events applied, so that a session coming back can be told
 * exactly what it missed. Appended under the core's write lock, read under its
 * read lock.
 */
public final class RecentChanges {
  private final int capacity;
  private final ArrayDeque<WatchEvent> events = new ArrayDeque<>();
  private long horizon;

  /** Keeps at most {@code capacity} events; the history starts after {@code horizon}. */
  public RecentChanges(int capacity, long horizon) {
    this.capacity = capacity;
    this.horizon = horizon;
  }

  public void add(WatchEvent event) {
    if (events.size() == capacity) {
      horizon = events.removeFirst().getZxid();
    }
    events.addLast(event);
  }

  /** Starts again from a history kept with a snapshot (its last {@code capacity} events). */
  public void restore(ChangeHistory history) {
    events.clear();
    horizon = history.horizon();
    history.events().forEach(this::add);
  }

  /** What is held now, to be kept with a snapshot taken at this point. */
  public ChangeHistory history() {
    return new ChangeHistory(horizon, List.copyOf(events));
  }

  /** True if every event after {@code zxid} is still held. */
  public boolean covers(long zxid) {
    return zxid >= horizon;
  }

  /** The held events after {@code zxid}, in order. */
  public List<WatchEvent> after(long zxid) {
    return events.stream().filter(e -> e.getZxid() > zxid).toList();
  }
}
