package dev.corral.server.tree;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tree's storage: nodes by path, and the indexes derived from them
 * (children per parent, ephemeral paths per session, TTL paths), plus the
 * sessions. Every node change goes through {@link #insert}, {@link #remove} or
 * {@link #replace}, which keep the indexes in step and, while a change is open
 * ({@link #begin}), record how to undo themselves.
 */
final class TreeState {
  private final Map<String, Node> nodes;
  /**
   * Parent path to its children's paths (the very strings that key {@link #nodes}, so a child costs a set
   * entry and no second string); only parents with at least one child have an entry.
   */
  private final Map<String, Set<String>> children = new HashMap<>();
  private final Map<Long, Set<String>> ephemerals = new HashMap<>();
  private final Set<String> ttlPaths = new HashSet<>();
  private final Map<Long, SessionRecord> sessions;
  private Deque<Runnable> undo;

  TreeState() {
    this(Map.of(Paths.ROOT, Node.ROOT), Map.of());
  }

  /**
   * Rebuilds a state from its nodes (with any numChildren; recomputed here) and
   * sessions. Every non-root node's parent must be among {@code nodes}.
   */
  TreeState(Map<String, Node> allNodes, Map<Long, SessionRecord> allSessions) {
    nodes = new HashMap<>(allNodes);
    sessions = new HashMap<>(allSessions);
    nodes.forEach((path, node) -> index(path, node));
    nodes.replaceAll((path, node) -> node.withNumChildren(childPaths(path).size()));
  }

  Node node(String path) {
    return nodes.get(path);
  }

  int nodeCount() {
    return nodes.size();
  }

  /** A copy of the path-to-node map: pointers only, the records are shared. */
  Map<String, Node> copyNodes() {
    return new HashMap<>(nodes);
  }

  /** The paths of {@code parent}'s children, unordered. */
  Set<String> childPaths(String parent) {
    return children.getOrDefault(parent, Set.of());
  }

  Set<String> ephemeralPaths(long sessionId) {
    return ephemerals.getOrDefault(sessionId, Set.of());
  }

  Set<String> ttlPaths() {
    return ttlPaths;
  }

  SessionRecord session(long sessionId) {
    return sessions.get(sessionId);
  }

  Collection<SessionRecord> sessions() {
    return sessions.values();
  }

  void addSession(SessionRecord session) {
    sessions.put(session.sessionId(), session);
  }

  void removeSession(long sessionId) {
    sessions.remove(sessionId);
  }

  /** Opens a change: node edits from now on can be undone by {@link #rollback}. */
  void begin() {
    undo = new ArrayDeque<>();
  }

  /** Keeps the open change. */
  void commit() {
    undo = null;
  }

  /** Undoes every node edit of the open change, newest first. */
  void rollback() {
    Deque<Runnable> log = undo;
    undo = null;
    while (!log.isEmpty()) {
      log.pop().run();
    }
  }

  /** Adds a node that does not exist yet; its parent must exist. */
  void insert(String path, Node node) {
    nodes.put(path, node);
    index(path, node);
    record(() -> remove(path));
  }

  /** Removes an existing node (the parent's stat is the caller's business). */
  void remove(String path) {
    Node node = nodes.remove(path);
    String parent = Paths.parent(path);
    Set<String> siblings = children.get(parent);
    siblings.remove(path);
    if (siblings.isEmpty()) {
      children.remove(parent);
    }
    if (node.ephemeralOwner() != 0) {
      Set<String> owned = ephemerals.get(node.ephemeralOwner());
      owned.remove(path);
      if (owned.isEmpty()) {
        ephemerals.remove(node.ephemeralOwner());
      }
    }
    ttlPaths.remove(path);
    record(() -> insert(path, node));
  }

  /** Replaces an existing node's record with a changed one (same mode and owner). */
  void replace(String path, Node node) {
    Node previous = nodes.put(path, node);
    record(() -> nodes.put(path, previous));
  }

  /** Order-independent 64-bit hash of every node and session. */
  long digest() {
    long sum = 0;
    for (Map.Entry<String, Node> e : nodes.entrySet()) {
      sum += Digests.node(e.getKey(), e.getValue());
    }
    for (SessionRecord session : sessions.values()) {
      sum += Digests.session(session);
    }
    return sum;
  }

  /** The sessions, in id order. */
  List<SessionRecord> sortedSessions() {
    List<SessionRecord> list = new ArrayList<>(sessions.values());
    list.sort((a, b) -> Long.compare(a.sessionId(), b.sessionId()));
    return list;
  }

  private void index(String path, Node node) {
    String parent = Paths.parent(path);
    if (parent != null) {
      children.computeIfAbsent(parent, p -> new HashSet<>()).add(path);
    }
    if (node.ephemeralOwner() != 0) {
      ephemerals.computeIfAbsent(node.ephemeralOwner(), s -> new HashSet<>()).add(path);
    }
    if (Modes.isTtl(node.mode())) {
      ttlPaths.add(path);
    }
  }

  private void record(Runnable undoStep) {
    if (undo != null) {
      undo.push(undoStep);
    }
  }
}
