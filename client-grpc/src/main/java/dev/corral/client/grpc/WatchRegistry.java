package dev.corral.client.grpc;

import dev.corral.client.EventType;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.WatchEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The client's watchers by kind and (server) path, as ZooKeeper's ZKWatchManager.
 * One-shot watches are added when their read succeeded (the server registered
 * them while reading, so their events can only come after that answer) and
 * removed when they fire; persistent ones stay until removed. Thread-safe.
 */
final class WatchRegistry {
  /** The kinds of watch the client holds. */
  enum Kind {
    /** One-shot, from getData, or exists on an existing node. */
    DATA(dev.corral.proto.v1.WatcherType.DATA, EventType.DATA_WATCH_REMOVED),
    /** One-shot, from exists on a missing node. */
    EXIST(dev.corral.proto.v1.WatcherType.DATA, EventType.DATA_WATCH_REMOVED),
    /** One-shot, from getChildren. */
    CHILD(dev.corral.proto.v1.WatcherType.CHILDREN, EventType.CHILD_WATCH_REMOVED),
    PERSISTENT(dev.corral.proto.v1.WatcherType.PERSISTENT_WATCH, EventType.PERSISTENT_WATCH_REMOVED),
    PERSISTENT_RECURSIVE(dev.corral.proto.v1.WatcherType.PERSISTENT_RECURSIVE_WATCH,
        EventType.PERSISTENT_WATCH_REMOVED),
    /** One-shot, from addWatch in FIRST mode. */
    FIRST(dev.corral.proto.v1.WatcherType.FIRST_WATCH, EventType.FIRST_WATCH_REMOVED);

    /** The type by which the server removes this kind of watch (DATA takes both data and exists watches). */
    final dev.corral.proto.v1.WatcherType serverType;
    /** What a watcher is told when its watch of this kind is removed, as ZooKeeper tells it. */
    final EventType removed;

    Kind(dev.corral.proto.v1.WatcherType serverType, EventType removed) {
      this.serverType = serverType;
      this.removed = removed;
    }

    boolean oneShot() {
      return this == DATA || this == EXIST || this == CHILD || this == FIRST;
    }
  }

  private final Map<Kind, Map<String, Set<Watcher>>> watches = new EnumMap<>(Kind.class);

  WatchRegistry() {
    for (Kind kind : Kind.values()) {
      watches.put(kind, new HashMap<>());
    }
  }

  synchronized void add(Kind kind, String path, Watcher watcher) {
    watches.get(kind).computeIfAbsent(path, p -> new LinkedHashSet<>()).add(watcher);
  }

  /**
   * Hands {@code deliver} the watchers {@code event} goes to, each once, under
   * this registry's lock (so a removal's events queued by {@link #remove} and
   * these keep one order); one-shot watchers that fire are removed.
   * {@code deliver} must only queue, never run user code.
   */
  synchronized void fire(WatchEvent event, Consumer<Watcher> deliver) {
    Set<Watcher> hit = new LinkedHashSet<>();
    String path = event.getPath();
    switch (event.getType()) {
      case NODE_CREATED, NODE_DATA_CHANGED -> {
        take(Kind.DATA, path, hit);
        take(Kind.EXIST, path, hit);
        persistent(path, hit, true);
      }
      case NODE_DELETED -> {
        take(Kind.DATA, path, hit);
        take(Kind.EXIST, path, hit);
        take(Kind.CHILD, path, hit);
        take(Kind.FIRST, path, hit);
        persistent(path, hit, true);
      }
      case NODE_FIRST -> take(Kind.FIRST, path, hit);
      case NODE_CHILDREN_CHANGED -> {
        take(Kind.CHILD, path, hit);
        persistent(path, hit, false);
      }
      default -> { }
    }
    hit.forEach(deliver);
  }

  private void take(Kind kind, String path, Set<Watcher> hit) {
    Set<Watcher> found = kind.oneShot() ? watches.get(kind).remove(path) : watches.get(kind).get(path);
    if (found != null) {
      hit.addAll(found);
    }
  }

  private void persistent(String path, Set<Watcher> hit, boolean recursiveToo) {
    take(Kind.PERSISTENT, path, hit);
    Map<String, Set<Watcher>> recursive = watches.get(Kind.PERSISTENT_RECURSIVE);
    if (!recursiveToo || recursive.isEmpty()) {
      return;
    }
    if (recursive.size() < depthOf(path)) {
      // fewer watched paths than ancestors: test each, deepest first as the walk below goes, rather than copy
      // every ancestor's path (a path thousands of segments deep made that a long stall per event)
      recursive.keySet().stream().filter(watched -> isAtOrBelow(path, watched))
          .sorted(Comparator.comparingInt(String::length).reversed())
          .forEach(watched -> hit.addAll(recursive.get(watched)));
      return;
    }
    for (String p = path; p != null; p = parentOf(p)) {
      take(Kind.PERSISTENT_RECURSIVE, p, hit);
    }
  }

  private static int depthOf(String path) {
    int depth = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        depth++;
      }
    }
    return depth;
  }

  private static boolean isAtOrBelow(String path, String watched) {
    if (watched.equals("/")) {
      return true;
    }
    return path.startsWith(watched) && (path.length() == watched.length() || path.charAt(watched.length()) == '/');
  }

  private static String parentOf(String path) {
    if (path.equals("/")) {
      return null;
    }
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  /**
   * The server-side watch types that removing the {@code leaving} watchers'
   * watches of {@code type} on {@code path} takes off the server (those no
   * other local watcher holds on the path), or null when none of them has
   * such a watch. Removes nothing.
   */
  synchronized List<dev.corral.proto.v1.WatcherType> serverRemovals(String path, Set<Watcher> leaving,
      WatcherType type) {
    boolean anyHeld = false;
    Set<dev.corral.proto.v1.WatcherType> serverTypes = new LinkedHashSet<>();
    for (Kind kind : Kind.values()) {
      if (held(type, kind, path, leaving)) {
        anyHeld = true;
        if (onlyHolders(leaving, path, kind.serverType)) {
          serverTypes.add(kind.serverType);
        }
      }
    }
    return anyHeld ? List.copyOf(serverTypes) : null;
  }

  /**
   * Removes the {@code leaving} watchers' watches of {@code type} on {@code
   * path}, telling each as below, and returns the server-side watch types
   * that no local watcher holds any more: what the server must drop now.
   */
  synchronized List<dev.corral.proto.v1.WatcherType> remove(String path, Set<Watcher> leaving, WatcherType type,
      Function<Watcher, Consumer<EventType>> tell) {
    List<dev.corral.proto.v1.WatcherType> orphaned = serverRemovals(path, leaving, type);
    leaving.forEach(watcher -> remove(path, watcher, type, tell.apply(watcher)));
    return orphaned == null ? List.of() : orphaned;
  }

  /**
   * Removes {@code watcher}'s watches of {@code type} on {@code path} and hands
   * {@code tell}, under this registry's lock (see {@link #fire}), the events
   * that tell the watcher which of its watches went (one per kind, as
   * ZooKeeper tells them). Nothing is told of a watch that fired meanwhile.
   */
  private void remove(String path, Watcher watcher, WatcherType type, Consumer<EventType> tell) {
    Set<EventType> told = new LinkedHashSet<>();
    for (Kind kind : Kind.values()) {
      if (matches(type, kind) && removeOne(kind, path, watcher)) {
        told.add(kind.removed);
      }
    }
    told.forEach(tell);
  }

  /** The watchers holding a watch of {@code type} on {@code path}, each once. */
  synchronized Set<Watcher> holders(String path, WatcherType type) {
    Set<Watcher> holders = new LinkedHashSet<>();
    for (Kind kind : Kind.values()) {
      if (matches(type, kind)) {
        holders.addAll(watches.get(kind).getOrDefault(path, Set.of()));
      }
    }
    return holders;
  }

  private static boolean matches(WatcherType type, Kind kind) {
    return switch (type) {
      case CHILDREN -> kind == Kind.CHILD;
      case DATA -> kind == Kind.DATA || kind == Kind.EXIST;
      case PERSISTENT -> kind == Kind.PERSISTENT;
      case PERSISTENT_RECURSIVE -> kind == Kind.PERSISTENT_RECURSIVE;
      case FIRST -> kind == Kind.FIRST;
      case ANY -> true;
    };
  }

  /** Whether one of {@code leaving} holds a watch of {@code kind} (one that {@code type} names) on {@code path}. */
  private boolean held(WatcherType type, Kind kind, String path, Set<Watcher> leaving) {
    if (!matches(type, kind)) {
      return false;
    }
    Set<Watcher> holders = watches.get(kind).getOrDefault(path, Set.of());
    return leaving.stream().anyMatch(holders::contains);
  }

  /** Whether no watcher but those {@code leaving} holds a watch on {@code path} that {@code serverType} removes. */
  private boolean onlyHolders(Set<Watcher> leaving, String path, dev.corral.proto.v1.WatcherType serverType) {
    for (Kind kind : Kind.values()) {
      if (kind.serverType == serverType && !leaving.containsAll(watches.get(kind).getOrDefault(path, Set.of()))) {
        return false;
      }
    }
    return true;
  }

  private boolean removeOne(Kind kind, String path, Watcher watcher) {
    Set<Watcher> set = watches.get(kind).get(path);
    if (set == null || !set.remove(watcher)) {
      return false;
    }
    if (set.isEmpty()) {
      watches.get(kind).remove(path);
    }
    return true;
  }

  /**
   * Every watch, to re-register after a re-attach or on a new session, with
   * the last zxid the client saw, in as many requests as they need; none if
   * there is no watch. Zxids are the whole tree's, so a new session hears
   * what changed after it as a re-attached one does.
   */
  synchronized List<SetWatchesRequest> reRegistration(long relativeZxid) {
    SetWatchesParts parts = new SetWatchesParts(relativeZxid);
    watches.get(Kind.DATA).keySet().forEach(path -> parts.add(path, SetWatchesRequest.Builder::addDataWatches));
    watches.get(Kind.EXIST).keySet().forEach(path -> parts.add(path, SetWatchesRequest.Builder::addExistWatches));
    watches.get(Kind.CHILD).keySet().forEach(path -> parts.add(path, SetWatchesRequest.Builder::addChildWatches));
    watches.get(Kind.FIRST).keySet().forEach(path -> parts.add(path, SetWatchesRequest.Builder::addFirstWatches));
    watches.get(Kind.PERSISTENT).keySet()
        .forEach(path -> parts.add(path, SetWatchesRequest.Builder::addPersistentWatches));
    watches.get(Kind.PERSISTENT_RECURSIVE).keySet()
        .forEach(path -> parts.add(path, SetWatchesRequest.Builder::addPersistentRecursiveWatches));
    return parts.build();
  }
}
