package dev.corral.server.tree;

import dev.corral.proto.internal.AppliedProposal;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import dev.corral.proto.internal.SnapshotHeader;
import dev.corral.proto.internal.SnapshotNode;
import dev.corral.proto.internal.SnapshotSession;
import dev.corral.proto.internal.SnapshotTrailer;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.WatchEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The snapshot file format of log.proto: a SnapshotHeader, the nodes, the
 * sessions, the recent change events, each length-delimited, then a SnapshotTrailer holding the CRC32C
 * of every byte before it.
 */
final class SnapshotCodec {
  static final int FORMAT = 1;
  private static final int MAX_MESSAGE_BYTES = 1 << 30;

  private SnapshotCodec() {}

  static void write(Map<String, Node> nodes, List<SessionRecord> sessions, long lastZxid,
      List<AppliedProposal> proposals, ChangeHistory history, OutputStream out) throws IOException {
    CRC32C crc = new CRC32C();
    CodedOutputStream coded = CodedOutputStream.newInstance(new CheckedOutputStream(out, crc), 64 * 1024);
    writeDelimited(coded, SnapshotHeader.newBuilder()
        .setFormat(FORMAT)
        .setLastZxid(lastZxid)
        .setNodeCount(nodes.size())
        .setSessionCount(sessions.size())
        .addAllAppliedProposals(proposals)
        .setRecentEventCount(history.events().size())
        .setHistoryHorizon(history.horizon())
        .build());
    for (Map.Entry<String, Node> entry : nodes.entrySet()) {
      writeDelimited(coded, toProto(entry.getKey(), entry.getValue()));
    }
    for (SessionRecord session : sessions) {
      writeDelimited(coded, SnapshotSession.newBuilder()
          .setSessionId(session.sessionId())
          .setTimeoutMs(session.timeoutMs())
          .setPassword(session.password())
          .setAttachment(session.attachment())
          .build());
    }
    for (WatchEvent event : history.events()) {
      writeDelimited(coded, event);
    }
    coded.flush();
    SnapshotTrailer.newBuilder().setCrc32C((int) crc.getValue()).build().writeDelimitedTo(out);
    out.flush();
  }

  /** Reads exactly one snapshot's bytes from {@code in} (pass a buffered stream). */
  static DataTree read(InputStream in) throws IOException {
    CRC32C crc = new CRC32C();
    InputStream checked = new CheckedInputStream(in, crc);
    SnapshotHeader header = readDelimited(checked, SnapshotHeader.parser(), "the header");
    if (header.getFormat() != FORMAT) {
      throw corrupt("unsupported format " + header.getFormat() + " (this server reads format " + FORMAT + ")");
    }
    if (header.getNodeCount() < 1 || header.getSessionCount() < 0) {
      throw corrupt("bad counts in header: " + header.getNodeCount() + " nodes, "
          + header.getSessionCount() + " sessions");
    }
    Map<String, Node> nodes = new HashMap<>();
    for (long i = 0; i < header.getNodeCount(); i++) {
      SnapshotNode node = readDelimited(checked, SnapshotNode.parser(), "node " + i);
      if (nodes.put(node.getPath(), fromProto(node)) != null) {
        throw corrupt("node " + node.getPath() + " appears twice");
      }
    }
    Map<Long, SessionRecord> sessions = new HashMap<>();
    for (long i = 0; i < header.getSessionCount(); i++) {
      SnapshotSession s = readDelimited(checked, SnapshotSession.parser(), "session " + i);
      if (sessions.put(s.getSessionId(), new SessionRecord(s.getSessionId(), s.getTimeoutMs(), s.getPassword(), s.getAttachment())) != null) {
        throw corrupt("session " + s.getSessionId() + " appears twice");
      }
    }
    if (header.getRecentEventCount() < 0 || header.getRecentEventCount() > Integer.MAX_VALUE) {
      throw corrupt("bad count of recent events: " + header.getRecentEventCount());
    }
    List<WatchEvent> recent = new ArrayList<>();
    for (long i = 0; i < header.getRecentEventCount(); i++) {
      recent.add(readDelimited(checked, WatchEvent.parser(), "recent event " + i));
    }
    ChangeHistory history = header.hasHistoryHorizon()
        ? new ChangeHistory(header.getHistoryHorizon(), recent)
        : ChangeHistory.startingAfter(header.getLastZxid());
    int expected = (int) crc.getValue();
    SnapshotTrailer trailer = readDelimited(in, SnapshotTrailer.parser(), "the trailer");
    if (trailer.getCrc32C() != expected) {
      throw corrupt(String.format("checksum mismatch: trailer says %08x, content has %08x",
          trailer.getCrc32C(), expected));
    }
    checkStructure(nodes, sessions);
    return new DataTree(new TreeState(nodes, sessions), header.getLastZxid(),
        AppliedProposals.fromProto(header.getAppliedProposalsList()), history);
  }

  private static void checkStructure(Map<String, Node> nodes, Map<Long, SessionRecord> sessions)
      throws IOException {
    if (!nodes.containsKey(Paths.ROOT)) {
      throw corrupt("no root node");
    }
    for (Map.Entry<String, Node> entry : nodes.entrySet()) {
      String parent = Paths.parent(entry.getKey());
      if (parent != null && !nodes.containsKey(parent)) {
        throw corrupt("node " + entry.getKey() + " has no parent");
      }
      if (parent != null && Modes.isEphemeral(nodes.get(parent).mode())) {
        throw corrupt("node " + entry.getKey() + " has an ephemeral parent");
      }
      long owner = entry.getValue().ephemeralOwner();
      if (owner != 0 && !sessions.containsKey(owner)) {
        throw corrupt("node " + entry.getKey() + " belongs to unknown session 0x" + Long.toHexString(owner));
      }
    }
  }

  private static SnapshotNode toProto(String path, Node node) {
    return SnapshotNode.newBuilder()
        .setPath(path)
        // Safe: node data arrays are never mutated.
        .setData(UnsafeByteOperations.unsafeWrap(node.data()))
        .setCzxid(node.czxid())
        .setMzxid(node.mzxid())
        .setPzxid(node.pzxid())
        .setCtime(node.ctime())
        .setMtime(node.mtime())
        .setVersion(node.version())
        .setCversion(node.childCounter())
        .setEphemeralOwner(node.ephemeralOwner())
        .setMode(node.mode())
        .setTtlMs(node.ttlMs())
        .build();
  }

  private static Node fromProto(SnapshotNode node) throws IOException {
    if (PathRules.violation(node.getPath()).isPresent()) {
      throw corrupt("invalid node path \"" + PathRules.printable(node.getPath()) + "\"");
    }
    if (node.getMode() == CreateMode.UNRECOGNIZED) {
      throw corrupt("node " + node.getPath() + " has unknown mode " + node.getModeValue());
    }
    byte[] data = node.getData().isEmpty() ? Node.NO_DATA : node.getData().toByteArray();
    return new Node(data, node.getCzxid(), node.getMzxid(), node.getPzxid(), node.getCtime(),
        node.getMtime(), node.getVersion(), node.getCversion(), node.getEphemeralOwner(),
        node.getMode(), node.getTtlMs(), 0);
  }

  private static void writeDelimited(CodedOutputStream out, MessageLite message) throws IOException {
    out.writeUInt32NoTag(message.getSerializedSize());
    message.writeTo(out);
  }

  private static <T> T readDelimited(InputStream in, Parser<T> parser, String what) throws IOException {
    int length = readLength(in, what);
    byte[] bytes = in.readNBytes(length);
    if (bytes.length < length) {
      throw corrupt("truncated in " + what);
    }
    try {
      return parser.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("corrupt snapshot: cannot parse " + what + ": " + e.getMessage(), e);
    }
  }

  /** Reads a varint length prefix one byte at a time, so nothing past it is consumed. */
  private static int readLength(InputStream in, String what) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.read();
      if (b < 0) {
        throw corrupt("truncated before " + what);
      }
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        if (value > MAX_MESSAGE_BYTES) {
          throw corrupt("length " + value + " of " + what + " is too large");
        }
        return (int) value;
      }
    }
    throw corrupt("malformed length of " + what);
  }

  private static IOException corrupt(String problem) {
    return new IOException("corrupt snapshot: " + problem);
  }
}
