package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL_SEQUENTIAL;
import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.delete;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.proto.v1.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTest {
  private final Harness h = new Harness();

  @Test
  void openSessionTakesTheZxidAsItsId() {
    long zxid = h.nextZxid();
    long id = h.openSession();
    assertEquals(zxid, id);
    assertEquals(new SessionRecord(zxid, 6000, ByteString.copyFromUtf8("pw"), Harness.OPENING_TOKEN), h.tree.session(id).orElseThrow());
    assertEquals(List.of(h.tree.session(id).orElseThrow()), List.copyOf(h.tree.sessions()));
  }

  @Test
  void closeSessionRemovesAllItsEphemeralsInOneChange() {
    long mine = h.openSession();
    long other = h.openSession();
    h.ok(mine, create("/a"));
    h.ok(mine, create("/a/e1", EPHEMERAL));
    h.ok(mine, create("/e2", EPHEMERAL));
    h.ok(mine, create("/a/s-", EPHEMERAL_SEQUENTIAL));
    h.ok(other, create("/theirs", EPHEMERAL));
    long zxid = h.nextZxid();

    TxnResult result = h.closeSession(mine);

    assertFalse(result.response().hasError());
    assertEquals(zxid, result.response().getZxid());
    assertEquals(List.of(
        "NODE_DELETED /a/e1", "NODE_CHILDREN_CHANGED /a",
        "NODE_DELETED /a/s-0000000001", "NODE_CHILDREN_CHANGED /a",
        "NODE_DELETED /e2", "NODE_CHILDREN_CHANGED /"), events(result));
    assertTrue(h.tree.session(mine).isEmpty());
    assertTrue(h.exists("/a"));
    assertTrue(h.exists("/theirs"));
    assertEquals(0, h.stat("/a").getNumChildren());
    assertEquals(zxid, h.stat("/a").getPzxid());
  }

  @Test
  void closeSessionRemovesContainersItEmpties() {
    long s = h.openSession();
    h.ok(s, create("/c", CONTAINER));
    h.ok(s, create("/c/e", EPHEMERAL));
    TxnResult result = h.closeSession(s);
    assertEquals(List.of(
        "NODE_DELETED /c/e", "NODE_CHILDREN_CHANGED /c",
        "NODE_DELETED /c", "NODE_CHILDREN_CHANGED /"), events(result));
  }

  @Test
  void closeOfAnUnknownSessionFailsWithSessionExpired() {
    long s = h.openSession();
    h.closeSession(s);
    assertEquals(ErrorCode.SESSION_EXPIRED, h.closeSession(s).response().getError().getCode());
    assertEquals(ErrorCode.SESSION_EXPIRED, h.closeSession(777).response().getError().getCode());
  }

  @Test
  void closedSessionCannotWrite() {
    long s = h.openSession();
    h.closeSession(s);
    h.fails(s, create("/a"), ErrorCode.SESSION_EXPIRED);
  }

  @Test
  void explicitlyDeletedEphemeralIsNotDeletedAgainOnClose() {
    long s = h.openSession();
    long other = h.openSession();
    h.ok(s, create("/e", EPHEMERAL));
    h.ok(s, delete("/e", -1));
    h.ok(other, create("/e", EPHEMERAL));

    TxnResult result = h.closeSession(s);

    assertEquals(List.of(), result.events());
    assertEquals(other, h.stat("/e").getEphemeralOwner());
  }
}
