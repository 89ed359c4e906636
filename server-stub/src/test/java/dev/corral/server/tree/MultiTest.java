package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL_SEQUENTIAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.multi;
import static dev.corral.server.tree.Requests.opCheck;
import static dev.corral.server.tree.Requests.opCreate;
import static dev.corral.server.tree.Requests.opDelete;
import static dev.corral.server.tree.Requests.opExists;
import static dev.corral.server.tree.Requests.opGetChildren;
import static dev.corral.server.tree.Requests.opGetData;
import static dev.corral.server.tree.Requests.opSetData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.OpResult;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import java.util.List;
import org.junit.jupiter.api.Test;

class MultiTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  @Test
  void multiAppliesEveryOpAtOneZxidWithEventsInOrder() {
    h.ok(session, create("/a"));
    long zxid = h.nextZxid();
    TxnResult result = h.ok(session, multi(
        opCreate("/b", PERSISTENT), opSetData("/a", "x", 0), opDelete("/b", 0), opCheck("/a", 1)));

    assertEquals(zxid, result.response().getZxid());
    List<OpResult> results = result.response().getMulti().getResultsList();
    assertEquals(4, results.size());
    assertEquals("/b", results.get(0).getCreate().getPath());
    assertEquals(1, results.get(1).getSetData().getStat().getVersion());
    assertTrue(results.get(2).hasDelete());
    assertTrue(results.get(3).hasCheck());
    assertEquals(List.of(
        "NODE_CREATED /b", "NODE_CHILDREN_CHANGED /",
        "NODE_DATA_CHANGED /a",
        "NODE_DELETED /b", "NODE_CHILDREN_CHANGED /"), events(result));
    assertEquals(zxid, h.stat("/a").getMzxid());
  }

  @Test
  void readsInsideAMultiSeeEarlierWrites() {
    h.ok(session, create("/lock"));
    List<OpResult> results = h.ok(session, multi(
        opCreate("/lock/n-", EPHEMERAL_SEQUENTIAL),
        opGetChildren("/lock"),
        opSetData("/lock", "v", -1),
        opGetData("/lock"),
        opExists("/lock/n-0000000000"),
        opExists("/nope"))).response().getMulti().getResultsList();

    assertEquals(List.of("n-0000000000"), results.get(1).getGetChildren().getChildrenList());
    assertEquals("v", results.get(3).getGetData().getData().toStringUtf8());
    assertEquals(1, results.get(3).getGetData().getStat().getVersion());
    assertTrue(results.get(4).getExists().hasStat());
    assertFalse(results.get(5).getExists().hasStat());
  }

  @Test
  void failedMultiChangesNothingAndReportsEveryOp() {
    h.ok(session, create("/a"));
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/only"));
    h.ok(session, create("/e", EPHEMERAL));
    h.ok(session, create("/q"));
    long digest = h.tree.digest();
    int nodes = h.tree.nodeCount();

    List<MultiOp> ops = List.of(
        opCreate("/new", PERSISTENT),
        opCreate("/q/s-", PERSISTENT_SEQUENTIAL),
        opSetData("/a", "changed", -1),
        opDelete("/c/only", -1),
        opDelete("/e", -1),
        opCreate("/eph", EPHEMERAL),
        opDelete("/a", 1),
        opCheck("/a", 7),
        opCreate("/never", PERSISTENT));
    h.timeMs += 1;
    TxnResult result = h.write(session, multi(ops.toArray(MultiOp[]::new)));
    assertEquals(List.of(), result.events());

    assertEquals(digest, h.tree.digest());
    assertEquals(nodes, h.tree.nodeCount());
    Error error = result.response().getError();
    assertTrue(error.getMessage().startsWith("op 7 (check /a): "), error.getMessage());
    assertEquals("/a", error.getPath());
    List<OpResult> results = result.response().getMulti().getResultsList();
    assertEquals(ops.size(), results.size());
    for (int i = 0; i < ops.size(); i++) {
      ErrorCode expected = i == 7 ? ErrorCode.NO_NODE : ErrorCode.ROLLED_BACK;
      assertEquals(expected, results.get(i).getError().getCode(), "op " + i);
    }
  }

  @Test
  void failedMultiLeavesTheSequenceCounterAlone() {
    h.ok(session, create("/q"));
    h.fails(session, multi(opCreate("/q/s-", PERSISTENT_SEQUENTIAL), opCheck("/nope", -1)), ErrorCode.NO_NODE);
    assertEquals("/q/s-0000000000",
        h.ok(session, create("/q/s-", PERSISTENT_SEQUENTIAL)).response().getCreate().getPath());
  }

  @Test
  void failedMultiForgetsTheEphemeralsItCreated() {
    long other = h.openSession();
    h.fails(session, multi(opCreate("/e", EPHEMERAL), opCheck("/nope", -1)), ErrorCode.NO_NODE);
    h.ok(other, create("/e", EPHEMERAL));
    h.closeSession(session);
    assertTrue(h.exists("/e"), "the other session's node survives");
  }

  @Test
  void failedMultiKeepsTheEphemeralsItDeleted() {
    h.ok(session, create("/e", EPHEMERAL));
    h.fails(session, multi(opDelete("/e", -1), opCheck("/nope", -1)), ErrorCode.NO_NODE);
    assertEquals(session, h.stat("/e").getEphemeralOwner());
    h.closeSession(session);
    assertFalse(h.exists("/e"), "still removed when its session closes");
  }

  @Test
  void failedMultiRestoresAContainerItsDeleteCascadedAway() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/only"));
    h.fails(session, multi(opDelete("/c/only", -1), opCheck("/nope", -1)), ErrorCode.NO_NODE);
    assertTrue(h.exists("/c/only"));
    assertEquals(1, h.stat("/c").getNumChildren());
    assertEquals(List.of("c"), h.read(Requests.getChildren("/")).getGetChildren().getChildrenList());
  }

  @Test
  void containerEmptiedInsideAMultiStaysForLaterOpsOfThatMulti() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/a"));
    h.ok(session, multi(opDelete("/c/a", -1), opCreate("/c/b", PERSISTENT)));
    assertFalse(h.exists("/c/a"));
    assertTrue(h.exists("/c/b"));
  }

  @Test
  void containerLeftEmptyAtTheEndOfAMultiIsRemoved() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/a"));
    h.ok(session, multi(opCreate("/c/b", PERSISTENT), opDelete("/c/a", -1), opDelete("/c/b", -1)));
    assertFalse(h.exists("/c"));
  }

  @Test
  void aContainerDeletedAndCreatedAgainInTheMultiThatEmptiedItStays() {
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/a"));

    h.ok(session, multi(opDelete("/c/a", -1), opDelete("/c", -1), opCreate("/c", CONTAINER)));

    assertTrue(h.exists("/c"), "the new container never had a child, as ZooKeeper keeps it");
    assertEquals(0, h.stat("/c").getCversion());
  }

  @Test
  void underRulesV1AContainerDeletedAndCreatedAgainInTheMultiThatEmptiedItWasRemoved() {
    h.rules = TreeRules.V1; // a log written before V2 replays to the tree it made then
    h.ok(session, create("/c", CONTAINER));
    h.ok(session, create("/c/a"));

    h.ok(session, multi(opDelete("/c/a", -1), opDelete("/c", -1), opCreate("/c", CONTAINER)));

    assertFalse(h.exists("/c"));
  }

  @Test
  void checkFailsOnMissingNodeOrWrongVersionAndMinusOneChecksExistence() {
    h.ok(session, create("/a"));
    h.fails(session, multi(opCheck("/nope", -1)), ErrorCode.NO_NODE);
    h.fails(session, multi(opCheck("/a", 3)), ErrorCode.BAD_VERSION);
    h.ok(session, multi(opCheck("/a", -1), opCheck("/a", 0)));
  }

  @Test
  void failedReadInsideAMultiFailsIt() {
    h.fails(session, multi(opCreate("/a", PERSISTENT), opGetData("/nope")), ErrorCode.NO_NODE);
    assertFalse(h.exists("/a"));
  }

  @Test
  void aReadThatFailsInAMultiOfReadsIsAnsweredInItsPlaceAndTheOthersStill() {
    h.ok(session, create("/a"));
    h.ok(session, create("/a/b"));
    Request reads = multi(opGetData("/nope"), opGetChildren("/a"), opGetChildren("/gone"));

    for (Response response : List.of(h.read(reads), h.write(session, reads).response())) {
      assertFalse(response.hasError(), () -> "the multi itself succeeds: " + response);
      List<OpResult> results = response.getMulti().getResultsList();
      assertEquals(ErrorCode.NO_NODE, results.get(0).getError().getCode());
      assertEquals("/nope", results.get(0).getError().getPath());
      assertEquals(List.of("b"), results.get(1).getGetChildren().getChildrenList());
      assertEquals(ErrorCode.NO_NODE, results.get(2).getError().getCode());
    }
  }

  @Test
  void aMultiOfReadsIsAnsweredFromTheTreeAsTheLogWouldAnswerIt() {
    h.ok(session, create("/a"));
    h.ok(session, create("/a/b"));
    for (Request reads : List.of(
        multi(opGetChildren("/a"), opGetData("/a/b"), opExists("/nope")),
        multi(opGetChildren("/a"), opGetData("/nope"), opExists("/a")))) {
      assertTrue(DataTree.readsOnly(reads.getMulti()));
      Response local = h.read(reads);
      Response logged = h.write(session, reads).response();
      assertEquals(logged.getError(), local.getError());
      assertEquals(logged.getMulti(), local.getMulti());
    }
    assertFalse(DataTree.readsOnly(multi(opGetChildren("/a"), opCheck("/a", -1)).getMulti()));
    assertFalse(DataTree.readsOnly(multi().getMulti()));
  }

  @Test
  void emptyMultiSucceedsWithNoResults() {
    TxnResult result = h.ok(session, multi());
    assertTrue(result.response().hasMulti());
    assertEquals(0, result.response().getMulti().getResultsCount());
  }

  @Test
  void multiOpWithoutAnOpIsInvalidArgument() {
    Error error = h.fails(session, multi(opCreate("/a", PERSISTENT), MultiOp.getDefaultInstance()),
        ErrorCode.INVALID_ARGUMENT);
    assertTrue(error.getMessage().startsWith("op 1 "), error.getMessage());
    assertTrue(error.getMessage().contains("one this server does not know"), error.getMessage());
    assertFalse(h.exists("/a"));
  }

  @Test
  void multiFromAnUnknownSessionFailsWithSessionExpired() {
    h.fails(999, multi(opCreate("/a", PERSISTENT)), ErrorCode.SESSION_EXPIRED);
  }
}
