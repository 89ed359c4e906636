package dev.corral.server.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Paths, found for a path and every one of its ancestors in one pass over
 * the path: time in proportion to its length, memory in proportion to the
 * paths held (each kept once, as given).
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
  private final Map<Integer, List<String>> byHash = new HashMap<>();

  synchronized void add(String path) {
    List<String> paths = byHash.computeIfAbsent(path.hashCode(), h -> new ArrayList<>(1));
    if (!paths.contains(path)) {
      paths.add(path);
    }
  }

  synchronized void remove(String path) {
    List<String> paths = byHash.get(path.hashCode());
    if (paths != null && paths.remove(path) && paths.isEmpty()) {
      byHash.remove(path.hashCode());
    }
  }

  /**
   * Tests each held path that is {@code path} or one of its ancestors, the
   * root's first, until one passes; whether one did.
   */
  synchronized boolean findAlong(String path, Predicate<String> test) {
    if (byHash.isEmpty()) {
      return false;
    }
    int hash = 0;
    for (int end = 1; end <= path.length(); end++) {
      hash = 31 * hash + path.charAt(end - 1);
      if (endsAPath(path, end)) {
        String held = heldPrefix(path, end, hash);
        if (held != null && test.test(held)) {
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

  /** The held path that is the first {@code end} characters of {@code path}, whose hash is {@code hash}. */
  private String heldPrefix(String path, int end, int hash) {
    for (String held : byHash.getOrDefault(hash, List.of())) {
      if (held.length() == end && path.startsWith(held)) {
        return held;
      }
    }
    return null;
  }
}
