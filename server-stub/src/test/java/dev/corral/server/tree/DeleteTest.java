package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Stat;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeleteTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  @Test
  void deleteRemovesTheNodeAndUpdatesItsParent() {
    h.ok(session, create("/p"));
    h.ok(session, create("/p/c"));
    long zxid = h.nextZxid();
    TxnResult result = h.ok(session, delete("/p/c", -1));

    assertTrue(result.response().hasDelete());
    assertFalse(h.exists("/p/c"));
    Stat parent = h.stat("/p");
    assertEquals(0, parent.getNumChildren());
    assertEquals(2, parent.getCversion(), "the create and the delete, as ZooKeeper counts");
    assertEquals(zxid, parent.getPzxid());
    assertEquals(List.of("NODE_DELETED /p/c", "NODE_CHILDREN_CHANGED /p"), events(result));
  }

  @Test
  void cversionGrowsByOneWithEachCreateOrDeleteOfAChildWhileTheSequenceCountsCreates() {
    h.ok(session, create("/p"));
    List<Integer> seen = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String child = h.ok(session, create("/p/n-", PERSISTENT_SEQUENTIAL)).response().getCreate().getPath();
      seen.add(h.stat("/p").getCversion());
      assertEquals("/p/n-000000000" + i, child);
      h.ok(session, delete(child, -1));
      seen.add(h.stat("/p").getCversion());
    }
    assertEquals(List.of(1, 2, 3, 4, 5, 6), seen);
  }

  @Test
  void aParentChangedUnderTheFirstRulesShowsACversionThatNeverGoesBack() {
    h.rules = TreeRules.V0;
    h.ok(session, create("/p"));
    h.ok(session, create("/p/a"));
    h.ok(session, delete("/p/a", -1));
    int before = h.stat("/p").getCversion();
    h.rules = TreeRules.CURRENT;
    h.ok(session, create("/p/b"));
    int afterCreate = h.stat("/p").getCversion();
    h.ok(session, delete("/p/b", -1));

    assertTrue(before >= 2, "at least the create and the delete: " + before);
    assertEquals(before + 1, afterCreate);
    assertEquals(before + 2, h.stat("/p").getCversion());
  }

  @Test
  void eachEphemeralAClosingSessionRemovesCountsInItsParentsCversion() {
    long owner = h.openSession();
    h.ok(session, create("/p"));
    h.ok(owner, create("/p/e1", EPHEMERAL));
    h.ok(owner, create("/p/e2", EPHEMERAL));
    h.closeSession(owner);

    Stat parent = h.stat("/p");
    assertEquals(4, parent.getCversion());
    assertEquals(0, parent.getNumChildren());
  }

  @Test
  void deleteOfAMissingNodeFailsWithNoNode() {
    assertEquals("/nope", h.fails(session, delete("/nope", -1), ErrorCode.NO_NODE).getPath());
  }

  @Test
  void deleteChecksTheVersionUnlessItIsMinusOne() {
    h.ok(session, create("/a"));
    h.ok(session, setData("/a", "x", 0));
    h.fails(session, delete("/a", 0), ErrorCode.BAD_VERSION);
    h.ok(session, delete("/a", 1));
    h.ok(session, create("/b"));
    h.ok(session, delete("/b", -1));
    assertEquals(1, h.tree.nodeCount());
  }

  @Test
  void deleteOfANodeWithChildrenFailsWithNotEmpty() {
    h.ok(session, create("/p"));
    h.ok(session, create("/p/c"));
    assertEquals("/p", h.fails(session, delete("/p", -1), ErrorCode.NOT_EMPTY).getPath());
    assertTrue(h.exists("/p"));
  }

  @Test
  void theRootCannotBeDeleted() {
    h.fails(session, delete("/", -1), ErrorCode.INVALID_ARGUMENT);
    assertTrue(h.exists("/"));
  }

  @Test
  void containerIsDeletedWithItsLastChild() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/a"));
    h.ok(session, create("/c/b"));
    h.ok(session, delete("/c/a", -1));
    assertTrue(h.exists("/c"), "a container with a child left stays");

    TxnResult result = h.ok(session, delete("/c/b", -1));

    assertFalse(h.exists("/c"));
    assertEquals(List.of(
        "NODE_DELETED /c/b", "NODE_CHILDREN_CHANGED /c",
        "NODE_DELETED /c", "NODE_CHILDREN_CHANGED /"), events(result));
  }

  @Test
  void containerRemovalCascadesUpThroughContainersOnly() {
    h.ok(session, create("/p"));
    h.ok(session, create("/p/c1", CONTAINER));
    h.ok(session, create("/p/c1/c2", CONTAINER));
    h.ok(session, create("/p/c1/c2/leaf"));

    TxnResult result = h.ok(session, delete("/p/c1/c2/leaf", -1));

    assertEquals(List.of(
        "NODE_DELETED /p/c1/c2/leaf", "NODE_CHILDREN_CHANGED /p/c1/c2",
        "NODE_DELETED /p/c1/c2", "NODE_CHILDREN_CHANGED /p/c1",
        "NODE_DELETED /p/c1", "NODE_CHILDREN_CHANGED /p"), events(result));
    assertTrue(h.exists("/p"));
    assertEquals(0, h.stat("/p").getNumChildren());
  }

  @Test
  void containerThatNeverHadAChildStays() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/other"));
    h.ok(session, delete("/other", -1));
    assertTrue(h.exists("/c"));
    h.ok(session, delete("/c", -1));
    assertFalse(h.exists("/c"));
  }
}
