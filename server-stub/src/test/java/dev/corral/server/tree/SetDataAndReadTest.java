package dev.corral.server.tree;

import static dev.corral.server.tree.Harness.events;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.exists;
import static dev.corral.server.tree.Requests.getChildren;
import static dev.corral.server.tree.Requests.getData;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.Stat;
import java.util.List;
import org.junit.jupiter.api.Test;

class SetDataAndReadTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  @Test
  void setDataBumpsVersionMzxidAndMtimeOnly() {
    h.timeMs = 1_000;
    h.ok(session, create("/a"));
    Stat before = h.stat("/a");
    h.timeMs = 5_000;
    long zxid = h.nextZxid();

    TxnResult result = h.ok(session, setData("/a", "data", 0));

    Stat expected = before.toBuilder().setVersion(1).setMzxid(zxid).setMtime(5_000).setDataLength(4).build();
    assertEquals(expected, result.response().getSetData().getStat());
    assertEquals(expected, h.stat("/a"));
    assertEquals(List.of("NODE_DATA_CHANGED /a"), events(result));
    assertEquals("data", h.read(getData("/a")).getGetData().getData().toStringUtf8());
  }

  @Test
  void setDataOfAMissingNodeFailsWithNoNode() {
    h.fails(session, setData("/nope", "x", -1), ErrorCode.NO_NODE);
  }

  @Test
  void setDataWithAStaleVersionFailsWithBadVersion() {
    h.ok(session, create("/a"));
    h.ok(session, setData("/a", "1", 0));
    h.fails(session, setData("/a", "2", 0), ErrorCode.BAD_VERSION);
    assertEquals("1", h.read(getData("/a")).getGetData().getData().toStringUtf8());
    h.ok(session, setData("/a", "3", -1));
    assertEquals(2, h.stat("/a").getVersion());
  }

  @Test
  void existsOfAMissingNodeIsNotAnError() {
    Response response = h.read(exists("/nope"));
    assertFalse(response.hasError());
    assertTrue(response.hasExists());
    assertFalse(response.getExists().hasStat());
  }

  @Test
  void existsOfANodeHasItsStat() {
    h.ok(session, create("/a"));
    assertEquals(h.stat("/a"), h.read(exists("/a")).getExists().getStat());
  }

  @Test
  void getDataOfAMissingNodeIsNoNode() {
    assertEquals(ErrorCode.NO_NODE, h.read(getData("/nope")).getError().getCode());
  }

  @Test
  void getChildrenListsNamesInUtf8OrderWithTheParentStat() {
    h.ok(session, create("/p"));
    for (String name : List.of("b", "\uFFEF", "a", "\u00e9", "\uF900", "a0")) {
      h.ok(session, create("/p/" + name));
    }
    Response response = h.read(getChildren("/p"));
    // U+00E9 encodes as C3 A9, U+F900 as EF A4 80, U+FFEF as EF BF AF
    assertEquals(List.of("a", "a0", "b", "\u00e9", "\uF900", "\uFFEF"), response.getGetChildren().getChildrenList());
    assertEquals(h.stat("/p"), response.getGetChildren().getStat());
    assertEquals(6, response.getGetChildren().getStat().getNumChildren());
  }

  @Test
  void getChildrenDropsDeletedChildren() {
    h.ok(session, create("/a"));
    h.ok(session, create("/b"));
    h.ok(session, delete("/a", -1));
    assertEquals(List.of("b"), h.read(getChildren("/")).getGetChildren().getChildrenList());
  }

  @Test
  void getChildrenOfAMissingNodeIsNoNode() {
    assertEquals(ErrorCode.NO_NODE, h.read(getChildren("/nope")).getError().getCode());
  }

  @Test
  void readsAnswerAtTheLastAppliedZxid() {
    h.ok(session, create("/a"));
    assertEquals(h.tree.lastZxid(), h.read(getData("/a")).getZxid());
    assertEquals(h.tree.lastZxid(), h.read(exists("/zz")).getZxid());
  }

  @Test
  void readRejectsWrites() {
    assertThrows(IllegalArgumentException.class, () -> h.read(create("/a")));
    assertThrows(IllegalArgumentException.class, () -> h.read(Request.getDefaultInstance()));
  }

  @Test
  void statOfAMissingNodeIsEmpty() {
    assertTrue(h.tree.stat("/nope").isEmpty());
  }
}
