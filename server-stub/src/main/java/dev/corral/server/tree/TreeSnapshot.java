package dev.corral.server.tree;

import dev.corral.proto.internal.AppliedProposal;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * An immutable view of a tree, taken under the lock and written outside it:
 * {@link #writeTo} may run on another thread while the tree keeps changing.
 * Read back with {@link DataTree#load}.
 */
public final class TreeSnapshot {
  private final Map<String, Node> nodes;
  private final List<SessionRecord> sessions;
  private final long lastZxid;
  private final List<AppliedProposal> proposals;
  private final ChangeHistory history;

  TreeSnapshot(Map<String, Node> nodes, List<SessionRecord> sessions, long lastZxid,
      List<AppliedProposal> proposals, ChangeHistory history) {
    this.nodes = nodes;
    this.sessions = List.copyOf(sessions);
    this.lastZxid = lastZxid;
    this.proposals = List.copyOf(proposals);
    this.history = history;
  }

  /** This snapshot with the change events applied up to it (taken at the same point). */
  public TreeSnapshot withHistory(ChangeHistory recent) {
    return new TreeSnapshot(nodes, sessions, lastZxid, proposals, recent);
  }

  /** The zxid of the last change in the snapshot. */
  public long lastZxid() {
    return lastZxid;
  }

  /** Number of nodes in the snapshot, the root included. */
  public int nodeCount() {
    return nodes.size();
  }

  /**
   * Writes the snapshot in the format of log.proto (header, nodes, sessions,
   * CRC32C trailer). Flushes {@code out} but does not close it.
   */
  public void writeTo(OutputStream out) throws IOException {
    SnapshotCodec.write(nodes, sessions, lastZxid, proposals, history, out);
  }
}
