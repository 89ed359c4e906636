package dev.corral.server.tree;

import dev.corral.client.SequentialNames;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.internal.ExpireNode;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.Stat;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The znode tree and the sessions that own its ephemeral nodes. Not
 * thread-safe: the server core serializes access with a read/write lock.
 * {@link #apply} is pure and deterministic (no clock, no randomness, no I/O):
 * replicas that apply the same txns have equal {@link #digest}s.
 */
public final class DataTree {
  private final TreeState state;
  private final AppliedProposals proposals;
  private ChangeHistory loadedHistory; // until taken: the tree lives on, the events belong to the server's history
  private long lastZxid;

  /** An empty tree: just the root "/", no sessions, last zxid 0. */
  public DataTree() {
    this(new TreeState(), 0, new AppliedProposals(), ChangeHistory.startingAfter(0));
  }

  DataTree(TreeState state, long lastZxid, AppliedProposals proposals, ChangeHistory loadedHistory) {
    this.state = state;
    this.lastZxid = lastZxid;
    this.proposals = proposals;
    this.loadedHistory = loadedHistory;
  }

  /**
   * Hands over, once, the change events that came with the snapshot this tree
   * was loaded from (none, starting at its last zxid, for a snapshot written
   * before they were kept; none, from 0, for a new tree), so that the tree does
   * not hold them for its whole life.
   *
   * @throws IllegalStateException if they were taken already
   */
  public ChangeHistory takeLoadedHistory() {
    ChangeHistory taken = loadedHistory;
    if (taken == null) {
      throw new IllegalStateException("the loaded change history was taken already");
    }
    loadedHistory = null;
    return taken;
  }

  /**
   * Applies one txn at {@code zxid} by {@code rules}; {@code timeMs} and
   * {@code rules} are the log entry's.
   * Domain failures are answered in the result's response (with
   * {@code zxid}), and a failed txn changes nothing; so does a txn whose
   * proposal was applied already (see {@link AppliedProposals}). Afterwards
   * {@link #lastZxid()} is {@code zxid}.
   *
   * @throws IllegalArgumentException if {@code zxid} is not greater than {@link #lastZxid()}
   */
  public TxnResult apply(long zxid, long timeMs, TreeRules rules, Txn txn) {
    if (zxid <= lastZxid) {
      throw new IllegalArgumentException("zxid " + zxid + " is not after the last applied zxid " + lastZxid);
    }
    lastZxid = zxid;
    if (proposals.isDuplicate(txn)) {
      return new TxnResult(Response.newBuilder().setZxid(zxid)
          .setError(Errors.of(ErrorCode.INVALID_ARGUMENT, "a duplicate of proposal " + txn.getProposalId()
              + " already applied; skipped")).build(), List.of());
    }
    proposals.applied(txn);
    return new Applier(state, zxid, timeMs, rules).apply(txn);
  }

  /**
   * Answers, for the session {@code sessionId}, exists / get_data / get_children (alone, or a multi of them
   * only), get_ephemerals (that session's ephemeral nodes) and get_all_children_number at
   * {@link #lastZxid()} (watch flags are ignored here).
   *
   * @throws IllegalArgumentException for any other operation
   */
  public Response read(long sessionId, Request request) {
    return switch (request.getOpCase()) {
      case MULTI -> MultiApplier.read(state, request.getMulti(), lastZxid); // refuses a multi that writes
      case EXISTS -> Responses.single(lastZxid, Reader.exists(state, request.getExists().getPath()));
      case GET_DATA -> Responses.single(lastZxid, Reader.getData(state, request.getGetData().getPath()));
      case GET_CHILDREN -> Responses.single(lastZxid, Reader.getChildren(state, request.getGetChildren().getPath()));
      case GET_EPHEMERALS -> Reader.ephemerals(state, sessionId, request.getGetEphemerals().getPrefixPath(), lastZxid);
      case GET_ALL_CHILDREN_NUMBER ->
          Reader.allChildrenNumber(state, request.getGetAllChildrenNumber().getPath(), lastZxid);
      default -> throw new IllegalArgumentException("not a read: " + request.getOpCase());
    };
  }

  /**
   * True for a multi of reads only: it changes nothing, so it is answered here
   * ({@link #read}) rather than through the log.
   */
  public static boolean readsOnly(MultiRequest multi) {
    return MultiApplier.readsOnly(multi);
  }

  /** The node's Stat, or empty if there is no node at {@code path}. */
  public Optional<Stat> stat(String path) {
    return Optional.ofNullable(state.node(path)).map(Node::stat);
  }

  /**
   * The child of {@code parent} whose name ends in the lowest 10-digit
   * sequence counter (children without one are not counted), as a path; empty
   * when there is none. Scans the children: for lock and queue paths.
   */
  public Optional<String> firstInSequence(String parent) {
    String first = null;
    String firstName = null;
    for (String child : state.childPaths(parent)) {
      String name = Paths.name(child);
      if (SequentialNames.sequenceOf(name) >= 0
          && (first == null || SequentialNames.BY_SEQUENCE.compare(name, firstName) < 0)) {
        first = child;
        firstName = name;
      }
    }
    return Optional.ofNullable(first);
  }

  /** The zxid of the last applied txn (0 for a new tree). */
  public long lastZxid() {
    return lastZxid;
  }

  /** Number of nodes, the root included. */
  public int nodeCount() {
    return state.nodeCount();
  }

  /** The open session with that id, or empty if it was never opened or is closed. */
  public Optional<SessionRecord> session(long sessionId) {
    return Optional.ofNullable(state.session(sessionId));
  }

  /** The open sessions, in id order (a copy). */
  public Collection<SessionRecord> sessions() {
    return List.copyOf(state.sortedSessions());
  }

  /**
   * TTL nodes with no children whose TTL has passed at {@code nowMs}
   * ({@code nowMs - mtime > ttl}), in path order, as txns to propose.
   */
  public List<ExpireNode> expiredTtlNodes(long nowMs) {
    List<String> paths = new ArrayList<>();
    for (String path : state.ttlPaths()) {
      if (state.node(path).ttlExpired(nowMs)) {
        paths.add(path);
      }
    }
    paths.sort(Paths.UTF8_ORDER);
    List<ExpireNode> expired = new ArrayList<>(paths.size());
    for (String path : paths) {
      expired.add(ExpireNode.newBuilder().setPath(path).setMzxid(state.node(path).mzxid()).build());
    }
    return expired;
  }

  /**
   * An immutable view of the tree now, to be written later on any thread.
   * Costs one pointer copy per node.
   */
  public TreeSnapshot snapshot() {
    return new TreeSnapshot(state.copyNodes(), state.sortedSessions(), lastZxid, proposals.toProto(),
        ChangeHistory.startingAfter(lastZxid));
  }

  /**
   * Reads a tree written by {@link TreeSnapshot#writeTo}. Reads exactly the
   * snapshot's bytes, so pass a buffered stream.
   *
   * @throws IOException if the stream fails, ends early, or holds a snapshot
   *     with a bad checksum, an unknown format or an inconsistent tree
   */
  public static DataTree load(InputStream in) throws IOException {
    return SnapshotCodec.read(in);
  }

  /**
   * A deterministic 64-bit hash of every node (path, data, stat, mode, TTL)
   * and every session, independent of the order they were added in: equal
   * trees have equal digests on every replica.
   */
  public long digest() {
    return state.digest();
  }
}
