package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL_SEQUENTIAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.createOf;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.getData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CreateResult;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Stat;
import java.util.List;
import org.junit.jupiter.api.Test;

class CreateTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  @Test
  void newTreeHasOnlyTheRootWithAZeroStat() {
    DataTree tree = new DataTree();
    assertEquals(1, tree.nodeCount());
    assertEquals(Stat.getDefaultInstance(), tree.stat("/").orElseThrow());
    assertEquals(0, tree.lastZxid());
  }

  @Test
  void createStoresDataAndAFullStat() {
    h.timeMs = 42_000;
    long zxid = h.nextZxid();
    TxnResult result = h.ok(session, create(createOf("/a", PERSISTENT).setData(ByteString.copyFromUtf8("hello"))));

    Stat expected = Stat.newBuilder()
        .setCzxid(zxid).setMzxid(zxid).setPzxid(zxid)
        .setCtime(42_000).setMtime(42_000)
        .setDataLength(5)
        .build();
    assertEquals(zxid, result.response().getZxid());
    assertEquals(CreateResult.newBuilder().setPath("/a").setStat(expected).build(), result.response().getCreate());
    assertEquals(expected, h.stat("/a"));
    assertEquals("hello", h.read(getData("/a")).getGetData().getData().toStringUtf8());
    assertEquals(0, result.response().getXid());
  }

  @Test
  void createUpdatesTheParentsChildCountCversionAndPzxid() {
    h.ok(session, create("/p"));
    long zxid = h.nextZxid();
    h.ok(session, create("/p/c"));

    Stat parent = h.stat("/p");
    assertEquals(1, parent.getNumChildren());
    assertEquals(1, parent.getCversion());
    assertEquals(zxid, parent.getPzxid());
    assertEquals(0, parent.getVersion());
    assertTrue(parent.getMzxid() < zxid, "the parent's data did not change");
  }

  @Test
  void createFiresNodeCreatedThenParentChildrenChanged() {
    h.ok(session, create("/p"));
    assertEquals(List.of("NODE_CREATED /p/c", "NODE_CHILDREN_CHANGED /p"), events(h.ok(session, create("/p/c"))));
  }

  @Test
  void createWithoutParentFailsWithNoNodeForThePathAskedForNamingTheParent() {
    Error error = h.fails(session, create("/missing/c"), ErrorCode.NO_NODE);
    assertEquals("/missing/c", error.getPath());
    assertTrue(error.getMessage().contains("parent node /missing does not exist"), error.getMessage());
  }

  @Test
  void createOfAnExistingNodeFailsWithNodeExists() {
    h.ok(session, create("/a"));
    assertEquals("/a", h.fails(session, create("/a"), ErrorCode.NODE_EXISTS).getPath());
  }

  @Test
  void sequentialCreateMeetingANodeOfItsNameFailsForThePathAskedForNamingTheNode() {
    h.ok(session, create("/x"));
    h.ok(session, create("/x/n0000000001")); // the counter is 1 now: the next sequential name is taken
    Error error = h.fails(session, create("/x/n", PERSISTENT_SEQUENTIAL), ErrorCode.NODE_EXISTS);
    assertEquals("/x/n", error.getPath(), "as ZooKeeper's KeeperException.getPath()");
    assertTrue(error.getMessage().contains("/x/n0000000001"), error.getMessage());
  }

  @Test
  void createOfTheRootFailsWithNodeExists() {
    h.fails(session, create("/"), ErrorCode.NODE_EXISTS);
  }

  @Test
  void ephemeralNodesCannotHaveChildren() {
    h.ok(session, create("/e", EPHEMERAL));
    Error error = h.fails(session, create("/e/c"), ErrorCode.NO_CHILDREN_FOR_EPHEMERALS);
    assertEquals("/e/c", error.getPath());
    assertTrue(error.getMessage().contains("node /e is ephemeral"), error.getMessage());
    h.fails(session, create("/e/c", PERSISTENT_SEQUENTIAL), ErrorCode.NO_CHILDREN_FOR_EPHEMERALS);
  }

  @Test
  void ephemeralNodeIsOwnedByTheCreatingSession() {
    h.ok(session, create("/e", EPHEMERAL));
    h.ok(session, create("/p"));
    assertEquals(session, h.stat("/e").getEphemeralOwner());
    assertEquals(0, h.stat("/p").getEphemeralOwner());
  }

  @Test
  void sequentialSuffixComesFromParentCversion() {
    h.ok(session, create("/q"));
    h.ok(session, create("/q/x"));
    h.ok(session, delete("/q/x", -1));

    TxnResult first = h.ok(session, create("/q/item-", PERSISTENT_SEQUENTIAL));
    TxnResult second = h.ok(session, create("/q/item-", EPHEMERAL_SEQUENTIAL));

    assertEquals("/q/item-0000000001", first.response().getCreate().getPath());
    assertEquals("/q/item-0000000002", second.response().getCreate().getPath());
    assertTrue(h.exists("/q/item-0000000002"));
    assertEquals(List.of("NODE_CREATED /q/item-0000000001", "NODE_CHILDREN_CHANGED /q"), events(first));
  }

  @Test
  void sequentialNumbersCountCreatesOnlySoALockCycleTakesOneNumber() {
    h.ok(session, create("/lock"));
    for (int i = 0; i < 3; i++) {
      String path = h.ok(session, create("/lock/n-", EPHEMERAL_SEQUENTIAL)).response().getCreate().getPath();
      assertEquals("/lock/n-000000000" + i, path, "as ZooKeeper numbers them");
      h.ok(session, delete(path, -1));
    }
  }

  @Test
  void entriesWrittenUnderTheFirstRulesReplayToTheNamesTheirClientsWereTold() {
    h.rules = TreeRules.V0;
    h.ok(session, create("/q"));
    String told = sequentialCreate("/q/n-");
    h.ok(session, delete(told, -1));

    assertEquals("/q/n-0000000002", sequentialCreate("/q/n-"));
    h.rules = TreeRules.CURRENT;
    assertEquals("/q/n-0000000003", sequentialCreate("/q/n-"));
  }

  @Test
  void sequentialPathEndingInSlashIsJustTheCounter() {
    h.ok(session, create("/q"));
    assertEquals("/q/0000000000", h.ok(session, create("/q/", PERSISTENT_SEQUENTIAL)).response().getCreate().getPath());
    assertEquals("/0000000001", h.ok(session, create("/", PERSISTENT_SEQUENTIAL)).response().getCreate().getPath());
  }

  @Test
  void parentModeCreatesMissingAncestorsInTheSameChange() {
    h.ok(session, create("/a"));
    long zxid = h.nextZxid();
    TxnResult result = h.ok(session, create(createOf("/a/b/c/d", PERSISTENT).setParentMode(PERSISTENT)));

    assertEquals(List.of(
        "NODE_CREATED /a/b", "NODE_CHILDREN_CHANGED /a",
        "NODE_CREATED /a/b/c", "NODE_CHILDREN_CHANGED /a/b",
        "NODE_CREATED /a/b/c/d", "NODE_CHILDREN_CHANGED /a/b/c"), events(result));
    assertEquals(zxid, h.stat("/a/b").getCzxid());
    assertEquals(1, h.stat("/a/b/c").getNumChildren());
    assertEquals(5, h.tree.nodeCount());
  }

  @Test
  void parentModeContainerAncestorsGoAwayWithTheirLastDescendant() {
    h.ok(session, create(createOf("/locks/x/lock", PERSISTENT).setParentMode(CONTAINER)));
    h.ok(session, delete("/locks/x/lock", -1));
    assertFalse(h.exists("/locks"));
    assertEquals(1, h.tree.nodeCount());
  }

  @Test
  void parentModeGivesSequentialNodesTheFirstCounter() {
    TxnResult result = h.ok(session, create(createOf("/q/n-", PERSISTENT_SEQUENTIAL).setParentMode(PERSISTENT)));
    assertEquals("/q/n-0000000000", result.response().getCreate().getPath());
  }

  @Test
  void parentModeUnderAnEphemeralFailsAndCreatesNothing() {
    h.ok(session, create("/e", EPHEMERAL));
    long digest = h.tree.digest();
    Error error = h.fails(session, create(createOf("/e/x/y", PERSISTENT).setParentMode(PERSISTENT)),
        ErrorCode.NO_CHILDREN_FOR_EPHEMERALS);
    assertEquals(digest, h.tree.digest());
    assertEquals("/e/x/y", error.getPath(), "the path asked for, as when the parent itself is ephemeral");
    assertTrue(error.getMessage().contains("node /e is ephemeral"), error.getMessage());
  }

  @Test
  void applyRechecksArgumentsTheValidatorChecks() {
    h.fails(session, create("a/b"), ErrorCode.INVALID_PATH);
    h.fails(session, create(createOf("/t", PERSISTENT).setTtlMs(5)), ErrorCode.INVALID_ARGUMENT);
    h.fails(session, create(createOf("/t", PERSISTENT).setModeValue(99)), ErrorCode.INVALID_ARGUMENT);
    h.fails(session, create(createOf("/t/u", PERSISTENT).setParentMode(EPHEMERAL)), ErrorCode.INVALID_ARGUMENT);
    assertEquals(1, h.tree.nodeCount());
  }

  @Test
  void writesFromUnknownSessionsFailWithSessionExpired() {
    h.fails(12345, create("/a"), ErrorCode.SESSION_EXPIRED);
    h.fails(0, create("/a"), ErrorCode.SESSION_EXPIRED);
    assertFalse(h.exists("/a"));
  }

  @Test
  void readsAndOtherOperationsCannotComeThroughTheLog() {
    h.fails(session, getData("/"), ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void txnWithoutKindIsInvalidArgument() {
    assertEquals(ErrorCode.INVALID_ARGUMENT, h.apply(Txn.getDefaultInstance()).response().getError().getCode());
  }

  @Test
  void failedTxnStillAdvancesLastZxidAndAnswersWithIt() {
    long zxid = h.nextZxid();
    TxnResult result = h.write(session, create("/missing/c"));
    assertEquals(zxid, result.response().getZxid());
    assertEquals(zxid, h.tree.lastZxid());
  }

  @Test
  void nonIncreasingZxidIsAProgrammingError() {
    long last = h.tree.lastZxid();
    Txn txn = Txn.newBuilder().setSessionId(session).setRequest(create("/a")).build();
    assertThrows(IllegalArgumentException.class, () -> h.tree.apply(last, 0, TreeRules.CURRENT, txn));
    assertThrows(IllegalArgumentException.class, () -> h.tree.apply(last - 1, 0, TreeRules.CURRENT, txn));
    assertThrows(IllegalArgumentException.class, () -> new DataTree().apply(0, 0, TreeRules.CURRENT, txn));
    assertFalse(h.exists("/a"));
  }

  private String sequentialCreate(String path) {
    return h.ok(session, create(path, PERSISTENT_SEQUENTIAL)).response().getCreate().getPath();
  }
}
