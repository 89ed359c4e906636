package dev.corral.server.tree;

import static dev.corral.server.tree.Requests.create;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CreateMode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** A txn whose proposal was applied already (Raft committed its entry twice) changes nothing. */
class DuplicateProposalTest {
  private static final long ORIGIN = 0x5eedL;

  private final Harness h = new Harness();
  private final long session = h.openSession();

  private Txn sequentialCreate(long proposalId) {
    return Txn.newBuilder().setOrigin(ORIGIN).setProposalId(proposalId).setSessionId(session)
        .setRequest(create("/lock-", CreateMode.PERSISTENT_SEQUENTIAL)).build();
  }

  @Test
  void aRepeatedSequentialCreateDoesNotMakeASecondNode() {
    assertFalse(h.apply(sequentialCreate(1)).response().hasError());
    long digest = h.tree.digest();

    TxnResult again = h.apply(sequentialCreate(1));

    assertTrue(again.response().hasError());
    assertTrue(again.events().isEmpty());
    assertEquals(digest, h.tree.digest());
    assertEquals(2, h.tree.nodeCount());
  }

  @Test
  void proposalsCommittedOutOfOrderAreEachAppliedOnceAndOtherOriginsAreIndependent() {
    // after a leader change a proposer's entries can commit out of sending order: 5 before 4
    assertFalse(h.apply(sequentialCreate(5)).response().hasError());
    assertFalse(h.apply(sequentialCreate(4)).response().hasError());
    assertFalse(h.apply(sequentialCreate(6)).response().hasError());
    assertTrue(h.apply(sequentialCreate(4)).response().hasError());
    assertTrue(h.apply(sequentialCreate(5)).response().hasError());
    assertFalse(h.apply(sequentialCreate(3)).response().hasError());
    assertFalse(h.apply(sequentialCreate(1).toBuilder().setOrigin(ORIGIN + 1).build()).response().hasError());
    assertEquals(6, h.tree.nodeCount());
  }

  @Test
  void theMarksSurviveASnapshotSoEveryMemberSkipsTheSameTxns() throws IOException {
    h.apply(sequentialCreate(7));
    h.apply(sequentialCreate(9));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    h.tree.snapshot().writeTo(out);
    Harness restored = new Harness(DataTree.load(new ByteArrayInputStream(out.toByteArray())));

    assertTrue(restored.apply(sequentialCreate(7)).response().hasError());
    assertTrue(restored.apply(sequentialCreate(9)).response().hasError());
    assertFalse(restored.apply(sequentialCreate(8)).response().hasError());
  }
}
