package dev.corral.server.watch;

import dev.corral.proto.v1.WatcherType;
import dev.corral.proto.v1.WatchEvent;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The watches of the sessions attached to this server. Registrations may come
 * from many threads at once (reads run under the core's read lock);
 * {@link #trigger} runs under its write lock, so a read and its watch
 * registration are never split by a change.
 */
public final class WatchManager {
  private final Map<WatchKind, Map<String, Set<Long>>> byKind = new EnumMap<>(WatchKind.class);
  private final Map<Long, Set<Registration>> bySession = new ConcurrentHashMap<>();
  /** The FIRST watches (also in byKind), sorted: those on a parent's children are one range. */
  private final NavigableMap<String, Set<Long>> firstWatches = new ConcurrentSkipListMap<>();
  /** The paths of byKind's PERSISTENT_RECURSIVE watches, indexed so that an event finds those on its ancestors. */
  private final AncestorIndex recursiveWatches = new AncestorIndex();

  private record Registration(WatchKind kind, String path) {}

  public WatchManager() {
    for (WatchKind kind : WatchKind.values()) {
      byKind.put(kind, kind == WatchKind.FIRST ? firstWatches : new ConcurrentHashMap<>());
    }
  }

  /** Leaves a watch of {@code kind} on {@code path} for {@code sessionId}. */
  public void add(long sessionId, WatchKind kind, String path) {
    // add inside compute: another session's removal may drop the path's set; a path enters the index of
    // recursive watches there too, with its first watcher, so that the index holds byKind's paths
    byKind.get(kind).compute(path, (p, sessions) -> {
      if (sessions == null && kind == WatchKind.PERSISTENT_RECURSIVE) {
        recursiveWatches.add(path);
      }
      Set<Long> set = sessions != null ? sessions : ConcurrentHashMap.<Long>newKeySet();
      set.add(sessionId);
      return set;
    });
    // recorded inside compute too: a removeSession running alongside takes the session's set either before
    // this (and a later one finds the new set) or after it, never while this adds to a set it already took
    bySession.compute(sessionId, (s, registrations) -> {
      Set<Registration> set = registrations != null ? registrations : ConcurrentHashMap.newKeySet();
      set.add(new Registration(kind, path));
      return set;
    });
  }

  /** Whether the session has a watch of {@code kind} on {@code path}. */
  public boolean has(long sessionId, WatchKind kind, String path) {
    Set<Long> sessions = byKind.get(kind).get(path);
    return sessions != null && sessions.contains(sessionId);
  }

  /** Whether any session has a FIRST watch on a child of {@code parent}. */
  public boolean firstWatchesOnChildrenOf(String parent) {
    String prefix = parent.equals("/") ? "/" : parent + "/";
    // the paths below the parent sort between its prefix and the prefix with '/' raised to '0'
    String end = prefix.substring(0, prefix.length() - 1) + '0';
    for (String path : firstWatches.subMap(prefix, end).keySet()) {
      if (parent.equals(parentOf(path))) {
        return true;
      }
    }
    return false;
  }

  /** Whether any session has a watch of {@code kind}. */
  public boolean any(WatchKind kind) {
    return !byKind.get(kind).isEmpty();
  }

  /** Removes the session's watches of {@code type} on {@code path}; false if there were none. */
  public boolean remove(long sessionId, String path, WatcherType type) {
    boolean removed = false;
    for (WatchKind kind : kindsOf(type)) {
      removed |= removeOne(sessionId, kind, path);
    }
    return removed;
  }

  /** Drops every watch of a session (it closed, expired or detached from this server). */
  public void removeSession(long sessionId) {
    Set<Registration> registrations = bySession.remove(sessionId);
    if (registrations == null) {
      return;
    }
    for (Registration r : registrations) {
      byKind.get(r.kind()).computeIfPresent(r.path(), (p, sessions) -> removed(sessions, r.kind(), p, sessionId));
    }
  }

  /**
   * The sessions that hear {@code event}, each once, in a stable order;
   * one-shot watches that fired are consumed.
   */
  public Set<Long> trigger(WatchEvent event) {
    Set<Long> notified = new LinkedHashSet<>();
    String path = event.getPath();
    for (WatchKind kind : WatchKind.values()) {
      if (!kind.hears(event.getType())) {
        continue;
      }
      if (kind == WatchKind.PERSISTENT_RECURSIVE) {
        recursiveWatches.findAlong(path, watched -> {
          notified.addAll(recursiveSessionsOn(watched));
          return false;
        });
      } else {
        collect(kind, path, notified);
      }
    }
    return notified;
  }

  /**
   * Whether {@code sessionId} hears {@code event}; its one-shot watches that
   * fire are consumed. Other sessions' watches are untouched (used to replay
   * the events a re-attached session missed).
   */
  public boolean triggerFor(long sessionId, WatchEvent event) {
    boolean hears = false;
    String path = event.getPath();
    for (WatchKind kind : WatchKind.values()) {
      if (!kind.hears(event.getType())) {
        continue;
      }
      if (kind == WatchKind.PERSISTENT_RECURSIVE) {
        hears |= recursiveWatches.findAlong(path, watched -> recursiveSessionsOn(watched).contains(sessionId));
      } else if (has(sessionId, kind, path)) {
        hears = true;
        if (kind.oneShot()) {
          removeOne(sessionId, kind, path);
        }
      }
    }
    return hears;
  }

  /** The number of watches held, counting each session and path once per kind. */
  public int size() {
    return bySession.values().stream().mapToInt(Set::size).sum();
  }

  private void collect(WatchKind kind, String path, Set<Long> notified) {
    Map<String, Set<Long>> paths = byKind.get(kind);
    Set<Long> sessions = kind.oneShot() ? paths.remove(path) : paths.get(path);
    if (sessions == null) {
      return;
    }
    notified.addAll(sessions);
    if (kind.oneShot()) {
      for (Long sessionId : sessions) {
        Set<Registration> registrations = bySession.get(sessionId);
        if (registrations != null) {
          registrations.remove(new Registration(kind, path));
        }
      }
    }
  }

  private boolean removeOne(long sessionId, WatchKind kind, String path) {
    boolean[] removed = {false};
    byKind.get(kind).computeIfPresent(path, (p, sessions) -> {
      removed[0] = sessions.contains(sessionId);
      return removed(sessions, kind, p, sessionId);
    });
    Set<Registration> registrations = bySession.get(sessionId);
    if (registrations != null) {
      registrations.remove(new Registration(kind, path));
    }
    return removed[0];
  }

  /**
   * Takes the session off a path's watchers (inside byKind's compute); the
   * path leaves the index of recursive watches with its last watcher.
   */
  private Set<Long> removed(Set<Long> sessions, WatchKind kind, String path, long sessionId) {
    sessions.remove(sessionId);
    if (!sessions.isEmpty()) {
      return sessions;
    }
    if (kind == WatchKind.PERSISTENT_RECURSIVE) {
      recursiveWatches.remove(path);
    }
    return null;
  }

  private Set<Long> recursiveSessionsOn(String path) {
    return byKind.get(WatchKind.PERSISTENT_RECURSIVE).getOrDefault(path, Set.of());
  }

  private static WatchKind[] kindsOf(WatcherType type) {
    return switch (type) {
      case CHILDREN -> new WatchKind[] {WatchKind.CHILD};
      case DATA -> new WatchKind[] {WatchKind.DATA, WatchKind.EXIST};
      case PERSISTENT_WATCH -> new WatchKind[] {WatchKind.PERSISTENT};
      case PERSISTENT_RECURSIVE_WATCH -> new WatchKind[] {WatchKind.PERSISTENT_RECURSIVE};
      case FIRST_WATCH -> new WatchKind[] {WatchKind.FIRST};
      case ANY -> WatchKind.values();
      default -> new WatchKind[0];
    };
  }

  /** The parent of an absolute path; null for the root. */
  static String parentOf(String path) {
    if (path.equals("/")) {
      return null;
    }
    int slash = path.lastIndexOf('/');
    return slash == 0 ? "/" : path.substring(0, slash);
  }
}
