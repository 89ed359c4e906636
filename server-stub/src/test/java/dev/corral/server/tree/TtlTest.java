package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_WITH_TTL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.createOf;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.ExpireNode;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.MultiOp;
import java.util.List;
import org.junit.jupiter.api.Test;

class TtlTest {
  private static final long TTL = 10_000;
  private final Harness h = new Harness();
  private final long session = h.openSession();

  private long createTtl(String path) {
    h.timeMs = 100_000;
    h.ok(session, create(createOf(path, PERSISTENT_WITH_TTL).setTtlMs(TTL)));
    return h.stat(path).getMzxid();
  }

  @Test
  void ttlNodeIsListedOnlyOnceUnchangedForLongerThanItsTtl() {
    long mzxid = createTtl("/t");
    assertEquals(List.of(), h.tree.expiredTtlNodes(100_000 + TTL));
    assertEquals(List.of(ExpireNode.newBuilder().setPath("/t").setMzxid(mzxid).build()),
        h.tree.expiredTtlNodes(100_000 + TTL + 1));
  }

  @Test
  void expireNodeDeletesAnExpiredTtlNode() {
    long mzxid = createTtl("/t");
    h.timeMs = 100_000 + TTL + 1;
    TxnResult result = h.expire("/t", mzxid);
    assertFalse(result.response().hasError());
    assertFalse(h.exists("/t"));
    assertEquals(List.of("NODE_DELETED /t", "NODE_CHILDREN_CHANGED /"), events(result));
    assertEquals(List.of(), h.tree.expiredTtlNodes(Long.MAX_VALUE));
  }

  @Test
  void deletedOrRolledBackTtlNodesAreNotListed() {
    createTtl("/t");
    h.ok(session, delete("/t", -1));
    h.fails(session, Requests.multi(
        Requests.opCreate("/u", PERSISTENT), Requests.opCheck("/nope", -1)), ErrorCode.NO_NODE);
    MultiOp ttlCreate = MultiOp.newBuilder().setCreate(createOf("/v", PERSISTENT_WITH_TTL).setTtlMs(TTL)).build();
    h.fails(session, Requests.multi(ttlCreate, Requests.opCheck("/nope", -1)), ErrorCode.NO_NODE);
    assertEquals(List.of(), h.tree.expiredTtlNodes(Long.MAX_VALUE));
  }

  @Test
  void expireNodeKeepsANodeWhoseTtlHasNotPassedAtTheEntryTime() {
    long mzxid = createTtl("/t");
    h.timeMs = 100_000 + TTL;
    assertEquals(List.of(), h.expire("/t", mzxid).events());
    assertTrue(h.exists("/t"));
  }

  @Test
  void changedTtlNodeIsNotExpired() {
    long mzxid = createTtl("/t");
    h.timeMs = 100_000 + TTL + 1;
    h.ok(session, setData("/t", "touched", -1));
    h.timeMs = 100_000 + 3 * TTL;

    TxnResult stale = h.expire("/t", mzxid);

    assertFalse(stale.response().hasError());
    assertEquals(List.of(), stale.events());
    assertTrue(h.exists("/t"));
    assertEquals(List.of(), h.tree.expiredTtlNodes(100_000 + TTL + 1 + TTL));
    assertEquals(1, h.tree.expiredTtlNodes(100_000 + TTL + 1 + TTL + 1).size());
  }

  @Test
  void ttlNodeWithChildrenIsNotExpired() {
    long mzxid = createTtl("/t");
    h.ok(session, create("/t/c"));
    h.timeMs = 100_000 + 5 * TTL;
    assertEquals(List.of(), h.tree.expiredTtlNodes(h.timeMs));
    h.expire("/t", mzxid);
    assertTrue(h.exists("/t"));

    h.ok(session, delete("/t/c", -1));
    assertEquals(1, h.tree.expiredTtlNodes(h.timeMs).size(), "childless again and data unchanged");
  }

  @Test
  void expireNodeIgnoresNodesWithoutTtl() {
    h.ok(session, create("/p"));
    long mzxid = h.stat("/p").getMzxid();
    h.timeMs += 100 * TTL;
    h.expire("/p", mzxid);
    h.expire("/missing", mzxid);
    assertTrue(h.exists("/p"));
    assertEquals(List.of(), h.tree.expiredTtlNodes(h.timeMs));
  }

  @Test
  void sequentialTtlNodesExpireToo() {
    h.ok(session, create(createOf("/s-", PERSISTENT_SEQUENTIAL_WITH_TTL).setTtlMs(TTL)));
    assertEquals("/s-0000000000", h.tree.expiredTtlNodes(h.timeMs + TTL + 1).get(0).getPath());
  }

  @Test
  void expiringTheLastChildOfAContainerRemovesTheContainer() {
    h.ok(session, create("/c", CONTAINER));
    long mzxid = createTtl("/c/t");
    h.timeMs += TTL + 1;
    h.expire("/c/t", mzxid);
    assertFalse(h.exists("/c"));
  }

  @Test
  void ttlIsRejectedWithoutATtlModeAndRequiredWithOne() {
    h.fails(session, create(createOf("/a", PERSISTENT).setTtlMs(TTL)), ErrorCode.INVALID_ARGUMENT);
    h.fails(session, create(createOf("/a", PERSISTENT_WITH_TTL)), ErrorCode.INVALID_ARGUMENT);
  }
}
