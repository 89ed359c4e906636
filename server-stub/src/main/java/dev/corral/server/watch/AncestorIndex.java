package dev.corral.server.watch;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Sessions by path, found for a path and every one of its ancestors in one
 * pass over the path: time in proportion to its length, memory in proportion
 * to the paths held (each kept once, as given).
 *
 * <p>Paths are filed under their {@link String#hashCode}. The pass computes
 * the hash of each ancestor's path as it goes (the hash of a prefix is the
 * hash of the prefix one shorter, times 31, plus its last character), so an
 * ancestor is looked up without copying it. Looking each ancestor up by its
 * own path copied and hashed every one, time in proportion to the length
 * times the depth: a create thousands of segments deep stalled the server
 * for seconds. A tree of segments instead held a map per segment: a watch on
 * a path a million segments deep (2 MB, within a request's size) took 300 MB.
 * Thread-safe.
 */
final class AncestorIndex {
  private final Map<Integer, Map<String, Set<Long>>> byHash = new HashMap<>();

  synchronized void add(String path, long sessionId) {
    byHash.computeIfAbsent(path.hashCode(), h -> new HashMap<>(2))
        .computeIfAbsent(path, p -> new LinkedHashSet<>())
        .add(sessionId);
  }

  synchronized void remove(String path, long sessionId) {
    Map<String, Set<Long>> paths = byHash.get(path.hashCode());
    if (paths == null) {
      return;
    }
    Set<Long> sessions = paths.get(path);
    if (sessions != null && sessions.remove(sessionId) && sessions.isEmpty()) {
      paths.remove(path);
      if (paths.isEmpty()) {
        byHash.remove(path.hashCode());
      }
    }
  }

  /** Adds to {@code into} the sessions on {@code path} and on each of its ancestors, the root's first. */
  synchronized void collectAlong(String path, Set<Long> into) {
    findAlong(path, sessions -> {
      into.addAll(sessions);
      return false;
    });
  }

  /** Whether {@code sessionId} is on {@code path} or on one of its ancestors. */
  synchronized boolean anyAlong(String path, long sessionId) {
    return findAlong(path, sessions -> sessions.contains(sessionId));
  }

  /** Tests the sessions on each of {@code path}'s ancestors and on it, the root's first, until one passes. */
  private boolean findAlong(String path, Predicate<Set<Long>> test) {
    if (byHash.isEmpty()) {
      return false;
    }
    int hash = 0;
    for (int end = 1; end <= path.length(); end++) {
      hash = 31 * hash + path.charAt(end - 1);
      if (endsAPath(path, end)) {
        Set<Long> sessions = sessionsOn(path, end, hash);
        if (sessions != null && test.test(sessions)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code path}'s first {@code end} characters name it or an ancestor: "/", or up to a '/'. */
  private static boolean endsAPath(String path, int end) {
    return end == 1 || end == path.length() || path.charAt(end) == '/';
  }

  /** The sessions on the first {@code end} characters of {@code path}, whose hash is {@code hash}. */
  private Set<Long> sessionsOn(String path, int end, int hash) {
    Map<String, Set<Long>> paths = byHash.get(hash);
    if (paths == null) {
      return null;
    }
    for (Map.Entry<String, Set<Long>> held : paths.entrySet()) {
      String heldPath = held.getKey();
      if (heldPath.length() == end && path.startsWith(heldPath)) {
        return held.getValue();
      }
    }
    return null;
  }
}
