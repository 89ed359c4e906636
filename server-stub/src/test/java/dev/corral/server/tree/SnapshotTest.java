package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_WITH_TTL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.createOf;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.SnapshotHeader;
import dev.corral.proto.internal.SnapshotNode;
import dev.corral.proto.internal.SnapshotTrailer;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.WatchEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class SnapshotTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  private void buildSampleTree() {
    h.ok(session, create(createOf("/app/config", PERSISTENT).setParentMode(PERSISTENT)
        .setData(ByteString.copyFromUtf8("payload-marker"))));
    h.ok(session, setData("/app/config", "payload-marker-2", -1));
    h.ok(session, create("/app/q-", PERSISTENT_SEQUENTIAL));
    h.ok(session, create("/locks", CONTAINER));
    h.ok(session, create("/locks/e", EPHEMERAL));
    h.ok(session, create(createOf("/t", PERSISTENT_WITH_TTL).setTtlMs(5_000)));
    h.openSession();
  }

  private static byte[] write(TreeSnapshot snapshot) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    snapshot.writeTo(out);
    return out.toByteArray();
  }

  private static DataTree load(byte[] bytes) throws IOException {
    return DataTree.load(new ByteArrayInputStream(bytes));
  }

  @Test
  void roundTripKeepsNodesStatsSessionsAndLastZxid() throws IOException {
    buildSampleTree();
    DataTree loaded = load(write(h.tree.snapshot()));

    assertEquals(h.tree.digest(), loaded.digest());
    assertEquals(h.tree.lastZxid(), loaded.lastZxid());
    assertEquals(h.tree.nodeCount(), loaded.nodeCount());
    for (String path : List.of("/", "/app", "/app/config", "/app/q-0000000001", "/locks", "/locks/e", "/t")) {
      assertEquals(h.stat(path), loaded.stat(path).orElseThrow(), path);
    }
    assertEquals(List.copyOf(h.tree.sessions()), List.copyOf(loaded.sessions()));
    assertEquals(h.read(Requests.getChildren("/")), loaded.read(0, Requests.getChildren("/")));
    assertEquals(h.tree.expiredTtlNodes(Long.MAX_VALUE), loaded.expiredTtlNodes(Long.MAX_VALUE));
  }

  @Test
  void loadedTreeRemovesASessionsEphemeralsWhenItCloses() throws IOException {
    buildSampleTree();
    Harness after = new Harness(load(write(h.tree.snapshot())));
    after.timeMs = h.timeMs;

    TxnResult closed = after.closeSession(session);

    assertEquals(List.of(
        "NODE_DELETED /locks/e", "NODE_CHILDREN_CHANGED /locks",
        "NODE_DELETED /locks", "NODE_CHILDREN_CHANGED /"), events(closed));
    assertFalse(after.exists("/locks"));
  }

  @Test
  void loadedTreeContinuesSequenceNumbering() throws IOException {
    buildSampleTree();
    Harness after = new Harness(load(write(h.tree.snapshot())));
    long other = after.tree.sessions().stream().mapToLong(SessionRecord::sessionId).max().orElseThrow();
    assertEquals("/app/q-0000000002",
        after.ok(other, create("/app/q-", PERSISTENT_SEQUENTIAL)).response().getCreate().getPath());
  }

  @Test
  void snapshotIsNotAffectedByLaterChanges() throws IOException {
    buildSampleTree();
    long digestAtSnapshot = h.tree.digest();
    TreeSnapshot snapshot = h.tree.snapshot();
    h.ok(session, setData("/app/config", "later", -1));
    h.ok(session, create("/later"));
    h.closeSession(session);

    DataTree loaded = load(write(snapshot));

    assertEquals(digestAtSnapshot, loaded.digest());
    assertEquals(snapshot.lastZxid(), loaded.lastZxid());
    assertTrue(loaded.stat("/locks/e").isPresent());
  }

  @Test
  void emptyTreeRoundTrips() throws IOException {
    DataTree empty = new DataTree();
    DataTree loaded = load(write(empty.snapshot()));
    assertEquals(empty.digest(), loaded.digest());
    assertEquals(1, loaded.nodeCount());
  }

  @Test
  void loadReadsExactlyOneSnapshotFromTheStream() throws IOException {
    buildSampleTree();
    byte[] first = write(h.tree.snapshot());
    byte[] second = write(new DataTree().snapshot());
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);

    ByteArrayInputStream in = new ByteArrayInputStream(both);
    assertEquals(h.tree.digest(), DataTree.load(in).digest());
    assertEquals(new DataTree().digest(), DataTree.load(in).digest());
  }

  @Test
  void flippedByteIsDetected() throws IOException {
    buildSampleTree();
    byte[] bytes = write(h.tree.snapshot());
    int at = indexOf(bytes, "payload-marker-2".getBytes(StandardCharsets.UTF_8));
    bytes[at] ^= 0x01;

    IOException e = assertThrows(IOException.class, () -> load(bytes));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void everyTruncationIsRejected() throws IOException {
    buildSampleTree();
    byte[] bytes = write(h.tree.snapshot());
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThrows(IOException.class, () -> load(cut), "truncated to " + length);
    }
  }

  @Test
  void unknownFormatIsRejected() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SnapshotHeader.newBuilder().setFormat(2).setNodeCount(1).build().writeDelimitedTo(out);
    IOException e = assertThrows(IOException.class, () -> load(out.toByteArray()));
    assertTrue(e.getMessage().contains("format 2"), e.getMessage());
  }

  @Test
  void garbageIsRejected() {
    byte[] garbage = "this is not a snapshot at all".getBytes(StandardCharsets.UTF_8);
    assertThrows(IOException.class, () -> load(garbage));
  }

  /** A snapshot with a correct checksum over the given nodes and no sessions. */
  private static byte[] crafted(SnapshotNode... nodes) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    SnapshotHeader.newBuilder().setFormat(1).setNodeCount(nodes.length).build().writeDelimitedTo(body);
    for (SnapshotNode node : nodes) {
      node.writeDelimitedTo(body);
    }
    CRC32C crc = new CRC32C();
    crc.update(body.toByteArray());
    SnapshotTrailer.newBuilder().setCrc32C((int) crc.getValue()).build().writeDelimitedTo(body);
    return body.toByteArray();
  }

  private static SnapshotNode node(String path) {
    return SnapshotNode.newBuilder().setPath(path).build();
  }

  @Test
  void theChangeEventsKeptWithASnapshotAreReadBackInOrder() throws IOException {
    buildSampleTree();
    List<WatchEvent> events = List.of(
        WatchEvent.newBuilder().setType(EventType.NODE_CREATED).setPath("/app").setZxid(3).build(),
        WatchEvent.newBuilder().setType(EventType.NODE_DELETED).setPath("/gone").setZxid(5).build());
    ChangeHistory history = new ChangeHistory(2, events);

    DataTree loaded = load(write(h.tree.snapshot().withHistory(history)));

    assertEquals(history, loaded.takeLoadedHistory());
    assertEquals(h.tree.digest(), loaded.digest(), "the tree is read as before");
  }

  @Test
  void aSnapshotWrittenWithoutChangeEventsStartsItsHistoryAtItsLastZxid() throws IOException {
    DataTree loaded = load(crafted(node("/")));
    assertEquals(ChangeHistory.startingAfter(0), loaded.takeLoadedHistory());

    buildSampleTree();
    assertEquals(ChangeHistory.startingAfter(h.tree.lastZxid()), load(write(h.tree.snapshot())).takeLoadedHistory());
  }

  @Test
  void craftedSnapshotOfAConsistentTreeLoads() throws IOException {
    DataTree loaded = load(crafted(node("/"), node("/a/b"), node("/a")));
    assertEquals(1, loaded.stat("/a").orElseThrow().getNumChildren());
  }

  @Test
  void inconsistentTreesAreRejectedDespiteAValidChecksum() {
    assertCorrupt("root", node("/orphan"));
    assertCorrupt("no parent", node("/"), node("/a/b"));
    assertCorrupt("twice", node("/"), node("/a"), node("/a"));
    assertCorrupt("unknown session", node("/"), node("/e").toBuilder().setEphemeralOwner(5).build());
    assertCorrupt("invalid node path", node("/"), node("/a/"));
    assertCorrupt("unknown mode", node("/"), node("/a").toBuilder().setModeValue(77).build());
  }

  private static void assertCorrupt(String problem, SnapshotNode... nodes) {
    IOException e = assertThrows(IOException.class, () -> load(crafted(nodes)));
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }

  @Test
  void writingTwiceGivesTheSameBytes() throws IOException {
    buildSampleTree();
    TreeSnapshot snapshot = h.tree.snapshot();
    assertArrayEquals(write(snapshot), write(snapshot));
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
