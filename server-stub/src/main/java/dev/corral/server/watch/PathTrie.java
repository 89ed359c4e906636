package dev.corral.server.watch;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Sessions by path, in a tree of path segments, so that the sessions on a path
 * and on every one of its ancestors are found in one walk down the path: time
 * in proportion to its length. Looking each ancestor up by its own path took
 * a copy and a hash of every ancestor, so time in proportion to the length
 * times the depth, for every event; a create of a path thousands of segments
 * deep, with its parents, stalled the server for seconds. Thread-safe.
 */
final class PathTrie {
  private final Segment root = new Segment(null, "");

  private static final class Segment {
    final Segment parent;
    final String name;
    final Map<String, Segment> children = new HashMap<>();
    final Set<Long> sessions = new LinkedHashSet<>();

    Segment(Segment parent, String name) {
      this.parent = parent;
      this.name = name;
    }
  }

  synchronized void add(String path, long sessionId) {
    Segment at = root;
    for (String name : names(path)) {
      Segment parent = at;
      at = parent.children.computeIfAbsent(name, n -> new Segment(parent, n));
    }
    at.sessions.add(sessionId);
  }

  synchronized void remove(String path, long sessionId) {
    Segment at = find(path);
    if (at == null || !at.sessions.remove(sessionId)) {
      return;
    }
    while (at.parent != null && at.sessions.isEmpty() && at.children.isEmpty()) {
      at.parent.children.remove(at.name);
      at = at.parent;
    }
  }

  /** Adds to {@code into} the sessions on {@code path} and on each of its ancestors, the root's first. */
  synchronized void collectAlong(String path, Set<Long> into) {
    Segment at = root;
    into.addAll(at.sessions);
    for (String name : names(path)) {
      at = at.children.get(name);
      if (at == null) {
        return;
      }
      into.addAll(at.sessions);
    }
  }

  /** Whether {@code sessionId} is on {@code path} or on one of its ancestors. */
  synchronized boolean anyAlong(String path, long sessionId) {
    Segment at = root;
    if (at.sessions.contains(sessionId)) {
      return true;
    }
    for (String name : names(path)) {
      at = at.children.get(name);
      if (at == null) {
        return false;
      }
      if (at.sessions.contains(sessionId)) {
        return true;
      }
    }
    return false;
  }

  private Segment find(String path) {
    Segment at = root;
    for (String name : names(path)) {
      at = at.children.get(name);
      if (at == null) {
        return null;
      }
    }
    return at;
  }

  /** The segments of an absolute path ("/" has none). */
  private static String[] names(String path) {
    return path.length() <= 1 ? new String[0] : path.substring(1).split("/", -1);
  }
}
