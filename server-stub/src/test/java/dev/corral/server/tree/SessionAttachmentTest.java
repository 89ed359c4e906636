package dev.corral.server.tree;

import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.AttachSession;
import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A change sent through a stream the session has left (it re-attached since)
 * is refused, so a client that re-sent it elsewhere never sees it applied twice
 * or undoing a later write.
 */
class SessionAttachmentTest {
  private final Harness h = new Harness();
  private final long session = h.openSession();

  @Test
  void aSessionTakesTheTokenOfItsOpenThenOfEachAttach() {
    assertEquals(Harness.OPENING_TOKEN, h.tree.session(session).orElseThrow().attachment());
    TxnResult result = attach(session, 42);
    assertFalse(result.response().hasError());
    assertEquals(42, h.tree.session(session).orElseThrow().attachment());
  }

  @Test
  void aWriteThroughTheLatestAttachmentApplies() {
    h.ok(session, create("/a"));
    assertFalse(write(Harness.OPENING_TOKEN, setData("/a", "x", -1)).response().hasError());
    attach(session, 42);
    assertFalse(write(42, setData("/a", "y", -1)).response().hasError());
    assertEquals("y", data("/a"));
  }

  @Test
  void aLateWriteThroughAnEarlierAttachmentIsRefusedAndChangesNothing() {
    h.ok(session, create("/a"));
    attach(session, 42);
    long digest = h.tree.digest();

    TxnResult late = write(Harness.OPENING_TOKEN, setData("/a", "stale", -1));

    assertEquals(ErrorCode.SESSION_MOVED, late.response().getError().getCode());
    assertTrue(late.response().getError().getMessage().contains("re-attached"),
        late.response().getError().getMessage());
    assertEquals(digest, h.tree.digest());
    assertEquals("", data("/a"));
  }

  @Test
  void aLateReattachThroughAStreamTheSessionLeftIsRefusedAndTheSessionStaysWhereItIs() {
    h.ok(session, create("/a"));
    reattach(session, Harness.OPENING_TOKEN, 42); // the client's second stream, applied first
    long digest = h.tree.digest();

    TxnResult late = reattach(session, Harness.OPENING_TOKEN, 7); // its first, left in a stalled pipeline

    assertEquals(ErrorCode.SESSION_MOVED, late.response().getError().getCode());
    assertEquals(42, h.tree.session(session).orElseThrow().attachment());
    assertEquals(digest, h.tree.digest());
    assertEquals(ErrorCode.SESSION_MOVED, write(7, setData("/a", "stale", -1)).response().getError().getCode(),
        "what was sent through the left stream stays refused");
    assertFalse(write(42, setData("/a", "mine", -1)).response().hasError());
  }

  @Test
  void aLateCloseThroughAnEarlierAttachmentLeavesTheSessionOpen() {
    attach(session, 42);
    TxnResult close = h.apply(Txn.newBuilder().setSessionId(session).setAttachment(Harness.OPENING_TOKEN)
        .setCloseSession(CloseSession.getDefaultInstance()).build());
    assertEquals(ErrorCode.SESSION_MOVED, close.response().getError().getCode());
    assertTrue(h.tree.session(session).isPresent());
  }

  @Test
  void serverMadeChangesCarryNoAttachmentAndAreNeverRefusedSo() {
    attach(session, 42);
    assertFalse(h.closeSession(session).response().hasError());
    assertTrue(h.tree.session(session).isEmpty());
  }

  @Test
  void attachingAClosedSessionFailsWithSessionExpired() {
    h.closeSession(session);
    assertEquals(ErrorCode.SESSION_EXPIRED, attach(session, 42).response().getError().getCode());
  }

  @Test
  void theAttachmentSurvivesASnapshotAndCountsInTheDigest() throws IOException {
    long before = h.tree.digest();
    attach(session, 42);
    assertTrue(before != h.tree.digest(), "an attach changes the digest");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    h.tree.snapshot().writeTo(out);
    DataTree loaded = DataTree.load(new ByteArrayInputStream(out.toByteArray()));

    assertEquals(42, loaded.session(session).orElseThrow().attachment());
    assertEquals(h.tree.digest(), loaded.digest());
  }

  /** A re-attach as a stream proposes it: taking over from attachment {@code replaces}. */
  private TxnResult reattach(long sessionId, long replaces, long token) {
    return h.apply(Txn.newBuilder().setSessionId(sessionId).setAttachment(replaces)
        .setAttachSession(AttachSession.newBuilder().setAttachment(token)).build());
  }

  /** A re-attach that names no attachment it takes over, as logs written before that rule hold: applied. */
  private TxnResult attach(long sessionId, long token) {
    return h.apply(Txn.newBuilder().setSessionId(sessionId)
        .setAttachSession(AttachSession.newBuilder().setAttachment(token)).build());
  }

  private TxnResult write(long attachment, Request request) {
    return h.apply(Txn.newBuilder().setSessionId(session).setAttachment(attachment).setRequest(request).build());
  }

  private String data(String path) {
    return h.read(Requests.getData(path)).getGetData().getData().toStringUtf8();
  }
}
